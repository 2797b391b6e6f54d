package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The startup warning about a Redis {@code maxmemory-policy} that may evict lock keys,
 * against a real server.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisEvictionPolicyCheckIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void evictingPolicyIsWarnedAboutAtStartup(CapturedOutput output) {
		redis.server().command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		try (ConfigurableApplicationContext context = start()) {
			assertThat(output).contains("WARN")
				.contains("Redis maxmemory-policy is 'allkeys-lru'")
				.contains("Set maxmemory-policy to 'noeviction'");
		}
	}

	@Test
	void noevictionStaysQuiet(CapturedOutput output) {
		redis.server().command("CONFIG", "SET", "maxmemory-policy", "noeviction");
		try (ConfigurableApplicationContext context = start()) {
			assertThat(context.getBean(LockOperations.class).tryAcquire("quiet", Duration.ofSeconds(1)).isAcquired())
				.isTrue();
			assertThat(output).doesNotContain("maxmemory-policy");
		}
	}

	@Test
	void userNotPermittedToReadTheSettingStaysQuietAndLocks(CapturedOutput output) {
		redis.server().command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		redis.server()
			.command("ACL", "SETUSER", "locker", "reset", "on", ">secret", "~lock:*", "&lock:*", "+evalsha", "+eval",
					"+set", "+get", "+del", "+incr", "+time", "+pexpire", "+pttl", "+append", "+publish", "+subscribe");
		try (ConfigurableApplicationContext context = start("spring.data.redis.username=locker",
				"spring.data.redis.password=secret")) {
			assertThat(context.getBean(LockOperations.class).tryAcquire("acl", Duration.ofSeconds(1)).isAcquired())
				.isTrue();
			assertThat(output).doesNotContain("maxmemory-policy").doesNotContain("ERROR");
		}
		finally {
			redis.server().command("ACL", "DELUSER", "locker");
		}
	}

	@Test
	void pausedRedisDelaysStartupByTheLockTimeoutAtMost() {
		redis.server().pause();
		long started = System.nanoTime();
		ConfigurableApplicationContext context = null;
		try {
			context = new SpringApplicationBuilder(EvictionApp.class).web(WebApplicationType.NONE)
				.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.host=" + redis.host(),
						"spring.data.redis.port=" + redis.port(), "lock.redis.timeout=1s")
				.run();
			long startupMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
			System.out.println("[timing] startup with Redis paused: " + startupMillis + " ms");
			assertThat(startupMillis).isLessThan(8000);
		}
		finally {
			// Resumed before the context closes, since closing waits
			// for the client's connection.
			redis.server().resume();
			if (context != null) {
				context.close();
			}
		}
	}

	private static ConfigurableApplicationContext start(String... properties) {
		return new SpringApplicationBuilder(EvictionApp.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=2s")
			.properties(properties)
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class EvictionApp {

	}

}
