package dev.lockstarter.test.redis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisServerExtension} declared with {@link ExtendWith @ExtendWith},
 * which injects the server into the test's constructor and methods.
 */
@ExtendWith(RedisServerExtension.class)
class RedisServerExtendWithTests {

	private final RedisServer server;

	RedisServerExtendWithTests(RedisServer server) {
		this.server = server;
	}

	@Test
	void serverIsInjectedIntoTheConstructor() {
		assertThat(this.server.command("PING")).isEqualTo("PONG");
	}

	@Test
	void serverIsInjectedIntoTestMethods(RedisServer server) {
		assertThat(server).isSameAs(this.server);
	}

}
