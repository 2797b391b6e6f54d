package dev.lockstarter.test.redis;

import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.testkit.engine.EngineTestKit;

import dev.lockstarter.test.EngineTestKitOnly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * Tests for when {@link RedisServerExtension} starts and closes its server, observed by
 * running sample test classes through the JUnit Platform {@code EngineTestKit}.
 */
class RedisServerExtensionLifecycleTests {

	static final List<RedisServer> servers = new CopyOnWriteArrayList<>();

	@BeforeEach
	void clearServers() {
		servers.clear();
	}

	@Test
	void staticFieldRegistrationSharesOneServerAndClosesItAfterTheClass() {
		run(StaticFieldRegistration.class);
		assertThat(servers).hasSize(2);
		assertThat(servers.get(0)).isSameAs(servers.get(1));
		assertClosed(servers.get(0));
	}

	@Test
	void instanceFieldRegistrationStartsAServerForEachTest() {
		run(InstanceFieldRegistration.class);
		assertThat(servers).hasSize(2);
		assertThat(servers.get(0)).isNotSameAs(servers.get(1));
		servers.forEach(RedisServerExtensionLifecycleTests::assertClosed);
	}

	@Test
	void extendWithRegistrationClosesTheServerAfterTheClass() {
		run(ExtendWithRegistration.class);
		assertThat(servers).hasSize(2);
		assertThat(servers.get(0)).isSameAs(servers.get(1));
		assertClosed(servers.get(0));
	}

	private static void run(Class<?> testClass) {
		EngineTestKit.engine("junit-jupiter")
			.configurationParameter(EngineTestKitOnly.ENABLED, "true")
			.selectors(selectClass(testClass))
			.execute()
			.testEvents()
			.assertStatistics((stats) -> stats.started(2).succeeded(2));
	}

	private static void assertClosed(RedisServer server) {
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> server.command("PING"));
	}

	@EngineTestKitOnly
	static class StaticFieldRegistration {

		@RegisterExtension
		static final RedisServerExtension redis = new RedisServerExtension();

		@Test
		void first() {
			servers.add(redis.server());
		}

		@Test
		void second() {
			servers.add(redis.server());
		}

	}

	@EngineTestKitOnly
	static class InstanceFieldRegistration {

		@RegisterExtension
		final RedisServerExtension redis = new RedisServerExtension();

		@Test
		void first(RedisServer server) {
			assertThat(server.command("PING")).isEqualTo("PONG");
			servers.add(this.redis.server());
		}

		@Test
		void second(RedisServer server) {
			assertThat(server.command("PING")).isEqualTo("PONG");
			servers.add(this.redis.server());
		}

	}

	@EngineTestKitOnly
	@ExtendWith(RedisServerExtension.class)
	static class ExtendWithRegistration {

		@Test
		void first(RedisServer server) {
			servers.add(server);
		}

		@Test
		void second(RedisServer server) {
			servers.add(server);
		}

	}

}
