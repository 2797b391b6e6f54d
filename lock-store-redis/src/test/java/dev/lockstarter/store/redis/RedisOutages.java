package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.redis.RedisLockStore.SubscriptionState;
import dev.lockstarter.test.redis.RedisServer;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration.LettuceClientConfigurationBuilder;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the outage tests share: a connection factory built as Spring Boot builds it when
 * no timeout is configured, a {@code SIGKILL} of the server, a wait for the state of a
 * store's release subscription, and a stopwatch.
 */
final class RedisOutages {

	private RedisOutages() {
	}

	/**
	 * Return a started connection factory as Spring Boot builds it by default: no command
	 * timeout configured, so Lettuce's 60 seconds, with Spring Boot's timeout options;
	 * Lettuce's default connect timeout (10 seconds) and reconnect delay (up to 30
	 * seconds) unless {@code clientResources} says otherwise.
	 */
	static LettuceConnectionFactory bootDefaultConnectionFactory(RedisServer redis,
			@Nullable ClientResources clientResources) {
		LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.clientOptions(ClientOptions.builder().timeoutOptions(TimeoutOptions.enabled()).build());
		if (clientResources != null) {
			client.clientResources(clientResources);
		}
		LettuceClientConfiguration configuration = client.build();
		assertThat(configuration.getCommandTimeout()).as("Lettuce's command timeout").hasSeconds(60);
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()), configuration);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Kill the server with {@code SIGKILL}, as {@code kill -9} does; {@code restart()}
	 * starts it again.
	 */
	static void kill(RedisServer redis) {
		String info = redis.command("INFO", "server");
		assertThat(info).contains("process_id:");
		String pid = info.substring(info.indexOf("process_id:") + "process_id:".length());
		ProcessHandle process = ProcessHandle.of(Long.parseLong(pid.substring(0, pid.indexOf('\r')).strip()))
			.orElseThrow();
		process.destroyForcibly();
		try {
			process.onExit().get(5, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("redis-server did not exit after SIGKILL", ex);
		}
	}

	/**
	 * Wait until the store's release subscription is in {@code state}, for ten seconds at
	 * most.
	 */
	static void awaitSubscriptionState(RedisLockStore store, SubscriptionState state) {
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(store.getSubscriptionState()).as("subscription state").isEqualTo(state));
	}

	/**
	 * Return how long an action took.
	 */
	static Duration time(Runnable action) {
		long started = System.nanoTime();
		action.run();
		return Duration.ofNanos(System.nanoTime() - started);
	}

}
