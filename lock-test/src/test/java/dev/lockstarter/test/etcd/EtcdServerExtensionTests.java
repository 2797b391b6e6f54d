package dev.lockstarter.test.etcd;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link EtcdServerExtension}.
 */
class EtcdServerExtensionTests {

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	@Test
	void resolvesTheServerThatItRuns(EtcdServer server) {
		assertThat(server).isSameAs(etcd.server());
		assertThat(etcd.endpoint()).isEqualTo(server.endpoint());
		server.gateway().put("resolved", "yes");
		assertThat(new EtcdGateway(etcd.endpoint()).get("resolved")).isEqualTo("yes");
	}

}
