package dev.lockstarter.test.redis;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisServerExtension} registered on a static field.
 */
class RedisServerExtensionTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension("--maxmemory-policy", "noeviction");

	private static RedisServer serverBeforeAll;

	@BeforeAll
	static void recordServer(RedisServer server) {
		serverBeforeAll = server;
	}

	@Test
	void serverIsRunningDuringTests() {
		assertThat(redis.server().command("PING")).isEqualTo("PONG");
		assertThat(redis.host()).isEqualTo(redis.server().host());
		assertThat(redis.port()).isEqualTo(redis.server().port());
	}

	@Test
	void oneServerRunsForTheWholeClass(RedisServer server) {
		assertThat(server).isSameAs(serverBeforeAll).isSameAs(redis.server());
	}

	@Test
	void extraArgumentsConfigureTheServer() {
		assertThat(redis.server().command("CONFIG", "GET", "maxmemory-policy"))
			.isEqualTo("maxmemory-policy\nnoeviction");
	}

	@Nested
	class NestedTests {

		@Test
		void nestedClassSharesTheEnclosingServer(RedisServer server) {
			assertThat(server).isSameAs(serverBeforeAll);
			assertThat(server.command("PING")).isEqualTo("PONG");
		}

	}

}
