package dev.lockstarter.test.memcached;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link MemcachedServerExtension} registered on a static field.
 */
class MemcachedServerExtensionTests {

	@RegisterExtension
	static final MemcachedServerExtension memcached = new MemcachedServerExtension("-M");

	private static MemcachedServer serverBeforeAll;

	@BeforeAll
	static void recordServer(MemcachedServer server) {
		serverBeforeAll = server;
	}

	@Test
	void serverIsRunningDuringTests() {
		assertThat(memcached.server().command("version").get(0)).startsWith("VERSION ");
		assertThat(memcached.address()).isEqualTo(memcached.host() + ":" + memcached.port());
	}

	@Test
	void oneServerRunsForTheWholeClass(MemcachedServer server) {
		assertThat(server).isSameAs(serverBeforeAll).isSameAs(memcached.server());
	}

	@Test
	void extraArgumentsConfigureTheServer() {
		assertThat(memcached.server().command("stats settings")).contains("STAT evictions off");
	}

	@Nested
	class NestedTests {

		@Test
		void nestedClassSharesTheEnclosingServer(MemcachedServer server) {
			assertThat(server).isSameAs(serverBeforeAll);
		}

	}

}
