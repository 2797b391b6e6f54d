package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.contract.ExclusionChecker;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The Redis store with an ACL user limited to the lock key and channel prefix and to the
 * commands the store needs, configured through {@code spring.data.redis.username} and
 * {@code password}: every operation works, nothing is denied, and each command of the
 * rule is needed.
 */
class RedisAclIntegrationTests {

	private final ExecutorService executor = Executors.newCachedThreadPool();

	/**
	 * The rule documented in the README, after {@code ACL SETUSER locker on >password}.
	 */
	static final String RULE = "~lock:* &lock:* +evalsha +eval +set +get +del +incr +time +pexpire +pttl +append +publish "
			+ "+subscribe";

	private static final String CHANNEL = "lock:minimal-released";

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void startApplication() {
		createUser("locker", RULE);
		context = new SpringApplicationBuilder(AclApp.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "spring.data.redis.username=locker",
					"spring.data.redis.password=secret", "spring.data.redis.timeout=5s")
			.run();
	}

	@AfterAll
	static void closeApplication() {
		if (context != null) {
			context.close();
		}
	}

	@AfterEach
	void nothingWasDenied() {
		this.executor.shutdownNow();
		// The maxmemory-policy check at startup is denied CONFIG GET; it does not need it
		assertThat(deniedCommands("locker")).as("commands and keys the ACL denied").isSubsetOf("config|get");
	}

	@Test
	void acquireConflictExtendAndReleaseWorkWithTheRestrictedUser() {
		LockOperations locks = context.getBean(LockOperations.class);
		String key = "acl-" + UUID.randomUUID();
		try (Lease lease = locks.acquire(key, Duration.ofSeconds(30))) {
			assertThat(lease.fencingToken()).isPositive();
			LockAttempt conflict = locks.tryAcquire(key, Duration.ofSeconds(30));
			assertThat(conflict.isAcquired()).isFalse();
			assertThat(conflict.holderRemainingTtl()).isPositive();
			assertThat(
					context.getBean(RedisLockStore.class).extend("lock:" + key, "not-the-owner", Duration.ofSeconds(1)))
				.isFalse();
			// Every key of the lock is under the prefix the rule allows
			assertThat(redis.server().command("KEYS", "*" + key + "*").split("\n")).isNotEmpty()
				.allSatisfy((stored) -> assertThat(stored).startsWith("lock:"));
			assertThat(StoredLocks.isHeld(redis.server(), "lock:" + key)).isTrue();
		}
		assertThat(StoredLocks.isHeld(redis.server(), "lock:" + key)).isFalse();
	}

	@Test
	void waiterIsNotifiedOfTheReleaseWithTheRestrictedUser() throws Exception {
		LockOperations locks = context.getBean(LockOperations.class);
		String key = "acl-wait-" + UUID.randomUUID();
		Lease holder = locks.acquire(key, Duration.ofSeconds(30));
		CompletableFuture<LockAttempt> waiter = CompletableFuture
			.supplyAsync(
					() -> locks.tryAcquire(key,
							LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(Duration.ofSeconds(20))),
					this.executor);
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> !StoredLocks.subscribedChannels(redis.server()).isEmpty());
		// Subscribed, on channels under the prefix the rule allows
		assertThat(StoredLocks.subscribedChannels(redis.server())).isNotEmpty()
			.allSatisfy((channel) -> assertThat(channel).startsWith("lock:"));
		assertThat(holder.release()).isTrue();
		LockAttempt attempt = waiter.get(20, TimeUnit.SECONDS);
		assertThat(attempt.isAcquired()).isTrue();
		attempt.lease().release();
	}

	@Test
	void renewedLocksStayExclusiveWithTheRestrictedUser() {
		LockOperations locks = context.getBean(LockOperations.class);
		String prefix = "acl-exclusion-" + UUID.randomUUID() + ":";
		LockOptions options = LockOptions.ttl(Duration.ofMillis(300));
		ExclusionChecker.Result result = new ExclusionChecker().threads(4)
			.attemptsPerThread(50)
			.holdTime(Duration.ofMillis(2))
			.check(List.of(prefix + "a", prefix + "b"), (key) -> {
				LockAttempt attempt = locks.tryAcquire(key, options);
				return attempt.isAcquired() ? attempt.lease()::release : null;
			});
		assertThat(result.isExclusive()).as(result.toString()).isTrue();
		assertThat(result.acquisitions()).isPositive();
	}

	@Test
	void keysOutsideThePrefixAreDenied() {
		RedisLockStore store = context.getBean(RedisLockStore.class);
		try {
			assertThatExceptionOfType(LockStoreException.class)
				.isThrownBy(() -> store.tryAcquire("other:" + UUID.randomUUID(), "token", Duration.ofSeconds(1)));
		}
		finally {
			redis.server().command("ACL", "LOG", "RESET");
		}
	}

	/**
	 * Each command of the rule is needed: a user without it fails an operation of the
	 * store. Without {@code +subscribe}, waiters fall back to polling, so the check is
	 * that the release channel has no subscriber.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "evalsha", "eval", "set", "get", "del", "incr", "time", "pexpire", "pttl", "append",
			"publish", "subscribe" })
	void everyCommandOfTheRuleIsNeeded(String command) throws Exception {
		String user = "without-" + command;
		String rule = RULE.replaceAll(" \\+" + command + "(?= |$)", "");
		assertThat(rule).doesNotContain("+" + command + " ").doesNotEndWith("+" + command);
		createUser(user, rule);
		LettuceConnectionFactory factory = connectionFactory(user);
		RedisLockStore store = new RedisLockStore(factory, CHANNEL);
		LockTemplate locks = new LockTemplate(store);
		try {
			// A fresh script cache, as after a restart:
			// scripts must first be sent with EVAL
			redis.server().command("SCRIPT", "FLUSH");
			Consumer<Void> exercise = (ignored) -> {
				String key = "acl-minimal-" + UUID.randomUUID();
				Lease lease = locks.acquire(key, Duration.ofSeconds(30));
				assertThat(lease.fencingToken()).isPositive();
				// A waiter marks the lock, so that its release is announced
				assertThat(locks
					.tryAcquire(key, LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(Duration.ofMillis(50)))
					.isAcquired()).isFalse();
				assertThat(store.extend("lock:" + key, "not-the-owner", Duration.ofSeconds(30))).isFalse();
				// The owner's extension, as renewal sends it
				assertThat(lease.extend(Duration.ofSeconds(30))).isTrue();
				assertThat(lease.release()).isTrue();
			};
			if (command.equals("subscribe")) {
				exercise.accept(null);
				String key = "acl-minimal-" + UUID.randomUUID();
				Lease holder = locks.acquire(key, Duration.ofSeconds(30));
				assertThat(locks
					.tryAcquire(key, LockOptions.ttl(Duration.ofSeconds(1)).withWaitTime(Duration.ofMillis(300)))
					.isAcquired()).isFalse();
				assertThat(redis.server().command("PUBSUB", "NUMSUB", CHANNEL)).isEqualTo(CHANNEL + "\n0");
				holder.release();
				assertThat(deniedCommands(user)).contains("subscribe");
			}
			else {
				assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> exercise.accept(null));
				assertThat(deniedCommands(user)).contains(command);
			}
		}
		finally {
			locks.destroy();
			store.destroy();
			factory.destroy();
			redis.server().command("ACL", "DELUSER", user);
			redis.server().command("ACL", "LOG", "RESET");
		}
	}

	private static void createUser(String name, String rule) {
		List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", name, "reset", "on", ">secret"));
		args.addAll(Arrays.asList(rule.split(" ")));
		assertThat(redis.server().command(args.toArray(String[]::new))).isEqualTo("OK");
	}

	private static LettuceConnectionFactory connectionFactory(String user) {
		RedisStandaloneConfiguration server = new RedisStandaloneConfiguration(redis.host(), redis.port());
		server.setUsername(user);
		server.setPassword("secret");
		LettuceConnectionFactory factory = new LettuceConnectionFactory(server,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Return the commands and keys the ACL denied to {@code user}, from {@code ACL LOG}.
	 */
	private static List<String> deniedCommands(String user) {
		String log = redis.server().command("ACL", "LOG");
		List<String> denied = new ArrayList<>();
		if (log == null || log.isBlank()) {
			return denied;
		}
		String[] lines = log.split("\n");
		String object = null;
		for (int i = 0; i + 1 < lines.length; i++) {
			if (lines[i].equals("object")) {
				object = lines[i + 1];
			}
			else if (lines[i].equals("username") && lines[i + 1].equals(user) && object != null) {
				denied.add(object);
			}
		}
		return denied;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class AclApp {

	}

}
