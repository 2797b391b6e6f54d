package dev.lockstarter.test.etcd;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link EtcdServer}, through the v3 JSON gateway.
 */
class EtcdServerTests {

	@Test
	void startedServerStoresWhatIsPutThroughTheGatewayAndKeepsItAcrossAKillAndARestart() {
		try (EtcdServer server = EtcdServer.start()) {
			assertThat(server.endpoint()).isEqualTo("http://127.0.0.1:" + server.member().clientPort());
			assertThat(server.member().peerPort()).isNotEqualTo(server.member().clientPort());
			EtcdGateway gateway = server.gateway();
			long first = gateway.put("greeting", "hello");
			assertThat(gateway.get("greeting")).isEqualTo("hello");
			assertThat(gateway.get("absent")).isNull();
			assertThat(gateway.put("empty", "")).isGreaterThan(first);
			assertThat(gateway.get("empty")).isEmpty();
			EtcdGateway.Status status = gateway.status();
			assertThat(status.isLeader()).as("a single member leads itself").isTrue();
			assertThat(status.memberId()).isEqualTo(server.member().id());
			int port = server.member().clientPort();
			server.kill();
			assertThat(gateway.isHealthy()).isFalse();
			server.restart();
			assertThat(server.member().clientPort()).isEqualTo(port);
			assertThat(gateway.get("greeting")).as("acknowledged write after a kill").isEqualTo("hello");
			assertThat(gateway.put("greeting", "again")).as("revisions go on after a restart").isGreaterThan(first);
		}
	}

	@Test
	void pausedServerAnswersNothingUntilResumed() {
		try (EtcdServer server = EtcdServer.start()) {
			server.gateway().put("k", "v");
			EtcdGateway impatient = new EtcdGateway(server.endpoint(), Duration.ofMillis(500));
			server.pause();
			try {
				assertThat(server.member().isHealthy()).isFalse();
				assertThat(impatient.isHealthy()).as("asked over HTTP").isFalse();
				assertThatIllegalStateException().isThrownBy(() -> impatient.get("k"))
					.withMessageContaining("did not answer");
			}
			finally {
				server.resume();
			}
			assertThat(server.gateway().get("k")).isEqualTo("v");
			assertThat(server.member().isHealthy()).isTrue();
		}
	}

	@Test
	void closedServerIsGoneAndItsDirectoryDeleted() {
		EtcdServer server = EtcdServer.start();
		Path directory = server.directory();
		assertThat(directory.resolve("data/member")).isDirectory();
		assertThat(directory.resolve("etcd.log")).isRegularFile();
		server.close();
		assertThat(Files.exists(directory)).isFalse();
		assertThat(server.gateway().isHealthy()).isFalse();
		server.close();
	}

	@Test
	void missingBinaryNamesThePackageToInstall(@TempDir Path empty) {
		assertThatIllegalStateException()
			.isThrownBy(() -> EtcdBinary.find("an etcd server", null, List.of(empty.toString())))
			.withMessageContaining("apt-get install etcd-server")
			.withMessageContaining("-D" + EtcdServer.BIN_PROPERTY);
		assertThatIllegalStateException()
			.isThrownBy(() -> EtcdBinary.find("an etcd server", empty.toString(), List.of("/usr/bin")))
			.withMessageContaining("holds no etcd");
	}

}
