package dev.lockstarter.store.redis;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.LockOperationsContractTests;
import dev.lockstarter.test.fault.BlockedTime;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockOperationsContractTests} on the {@link RedisLockStore}, against a real Redis
 * server, plus what only Redis can show: waiting without pub/sub, and a holder process
 * killed with SIGKILL.
 */
class RedisLockOperationsContractTests extends LockOperationsContractTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void createConnectionFactory() {
		connectionFactory = connectionFactory(redis.host(), redis.port());
	}

	@AfterAll
	static void destroyConnectionFactory() {
		connectionFactory.destroy();
	}

	static LettuceConnectionFactory connectionFactory(String host, int port) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Override
	protected LockStore createStore() {
		return new RedisLockStore(connectionFactory);
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Override
	protected void destroyStore(LockStore store) {
		((RedisLockStore) store).destroy();
	}

	@Test
	void waiterStillAcquiresByPollingWhenThePubSubConnectionIsKilled() throws Exception {
		String key = uniqueKey("no-pubsub");
		Lease holder = locks().acquire(key, Duration.ofSeconds(30));
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<LockAttempt> waiter = executor.submit(() -> locks().tryAcquire(key,
					LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(Duration.ofSeconds(10))));
			awaitSubscribers(1);
			assertThat(redis.server().command("CLIENT", "KILL", "TYPE", "pubsub")).isNotEqualTo("0");
			assertThat(subscribers()).isZero();
			// The release is announced while nobody listens: only polling can find it.
			assertThat(holder.release()).isTrue();
			LockAttempt attempt = waiter.get(10, TimeUnit.SECONDS);
			assertThat(attempt.isAcquired()).isTrue();
			attempt.lease().release();
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void holderKilledWithSigkillBlocksOthersForAtMostItsTtl() throws Exception {
		String key = uniqueKey("killed-holder");
		// Two seconds: the holder, a new JVM on a machine that may be busy, renews every
		// two thirds of a second, and a late renewal must not pass for a lost lock
		Duration ttl = Duration.ofSeconds(2);
		String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process holder = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
				LockHolderProcess.class.getName(), redis.host(), Integer.toString(redis.port()), storeKey(key),
				Long.toString(ttl.toMillis()))
			.redirectErrorStream(true)
			.start();
		try {
			BufferedReader output = new BufferedReader(
					new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
			StringBuilder printed = new StringBuilder();
			String line;
			do {
				line = output.readLine();
				printed.append(line).append('\n');
			}
			while (line != null && !line.equals(LockHolderProcess.ACQUIRED));
			assertThat(line).as("holder process output:%n%s", printed).isEqualTo(LockHolderProcess.ACQUIRED);
			// Alive, the holder renews: its lock's expiry moves forward, and the renewed
			// lock keeps others out
			KilledHolderExpiry.awaitRenewals(
					() -> KilledHolderExpiry.Expiry.remaining(() -> remainingMillis(storeKey(key))), 2,
					ttl.multipliedBy(5));
			assertThat(store().tryAcquire(storeKey(key), "competitor", ttl).isAcquired()).isFalse();
			holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			long killedAt = System.nanoTime();
			assertThat(store().tryAcquire(storeKey(key), "competitor", ttl).isAcquired()).isFalse();
			// At most its time-to-live from its last renewal, which came before its
			// death;
			// 100 ms for a renewal the holder had sent, still in flight
			Duration blocked = BlockedTime.since(killedAt,
					() -> store().tryAcquire(storeKey(key), "competitor", ttl).isAcquired(), ttl.multipliedBy(5));
			assertThat(blocked).isLessThanOrEqualTo(ttl.plusMillis(100));
		}
		finally {
			holder.destroyForcibly();
		}
	}

	private static long remainingMillis(String storeKey) {
		String redisKey = new RedisKeys(RedisLockStore.DEFAULT_KEY_PREFIX).lockKey(storeKey);
		return Long.parseLong(Objects.requireNonNull(redis.server().command("PTTL", redisKey)));
	}

	private static void awaitSubscribers(int count) throws InterruptedException {
		await("subscribers of the release channel").atMost(Duration.ofSeconds(5))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(10))
			.untilAsserted(() -> assertThat(subscribers()).isGreaterThanOrEqualTo(count));
	}

	private static int subscribers() {
		String reply = redis.server().command("PUBSUB", "NUMSUB", RedisLockStore.DEFAULT_CHANNEL);
		String[] lines = reply.split("\n");
		return Integer.parseInt(lines[lines.length - 1].strip());
	}

}
