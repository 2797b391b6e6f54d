package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.lockstarter.test.redis.RedisSentinel;
import dev.lockstarter.test.redis.RedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisPeerLocks} on a real {@code redis-server}, and Redisson's locks
 * on Redis Sentinel too: two clients exclude each other, a short section is held, and
 * each library keeps its own promise once a section outlives the time-to-live (Redisson's
 * watchdog keeps the lock; Spring Integration's and ShedLock's locks expire, and say so).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RedisPeerLocksTests {

	/** The time-to-live of a lock that is meant to expire. */
	static final Duration TTL = Duration.ofMillis(300);

	/** The time-to-live of a holder that must outlast another client's whole wait. */
	static final Duration LONG_TTL = Duration.ofSeconds(10);

	/**
	 * Redisson's watchdog timeout: it renews every third of it, on time even on a busy
	 * machine.
	 */
	static final Duration WATCHDOG_TTL = Duration.ofMillis(500);

	/** The time-to-live of a client that waits for another's lock to expire. */
	static final Duration WAITER_TTL = Duration.ofSeconds(1);

	private static @Nullable RedisServer redis;

	private static @Nullable RedisSentinel sentinel;

	@BeforeAll
	static void startServers() {
		redis = RedisServer.start();
		sentinel = RedisSentinel.start();
	}

	@AfterAll
	static void stopServers() {
		if (sentinel != null) {
			sentinel.close();
		}
		if (redis != null) {
			redis.close();
		}
	}

	@ParameterizedTest(name = "fenced={0}")
	@ValueSource(booleans = { false, true })
	void redissonLocksExcludeEachOtherAndTheWatchdogKeepsTheHolder(boolean fenced) throws Exception {
		// The first holder's section outlasts the second's wait, twice the TTL: renewed
		try (WorkerLock first = RedisPeerLocks.redisson(Backend.REDIS, redisAddress(), WATCHDOG_TTL, fenced);
				WorkerLock second = RedisPeerLocks.redisson(Backend.REDIS, redisAddress(), WATCHDOG_TTL, fenced)) {
			PeerLockProbes.assertExclusion(first, second, "redisson-excluded-" + fenced, WATCHDOG_TTL, false);
		}
	}

	@ParameterizedTest(name = "fenced={0}")
	@ValueSource(booleans = { false, true })
	void redissonHoldsAShortSection(boolean fenced) throws Exception {
		try (WorkerLock lock = RedisPeerLocks.redisson(Backend.REDIS, redisAddress(), WATCHDOG_TTL, fenced)) {
			PeerLockProbes.Section section = PeerLockProbes.runOnce(lock, "redisson-short-" + fenced, Duration.ZERO);
			assertThat(section.held()).isTrue();
			if (fenced) {
				assertThat(section.fencingToken()).isPositive();
			}
			else {
				assertThat(section.fencingToken()).isZero();
			}
		}
	}

	@ParameterizedTest(name = "fenced={0}")
	@ValueSource(booleans = { false, true })
	void redissonWatchdogKeepsASectionThatOutlivesTheTimeToLiveHeld(boolean fenced) throws Exception {
		try (WorkerLock lock = RedisPeerLocks.redisson(Backend.REDIS, redisAddress(), WATCHDOG_TTL, fenced)) {
			PeerLockProbes.Section section = PeerLockProbes.runOnce(lock, "redisson-long-" + fenced,
					WATCHDOG_TTL.multipliedBy(4));
			assertThat(section.held()).isTrue();
		}
	}

	@Test
	void redissonFencingTokenIncreasesFromOneAcquisitionToTheNext() throws Exception {
		try (WorkerLock first = RedisPeerLocks.redisson(Backend.REDIS, redisAddress(), WATCHDOG_TTL, true);
				WorkerLock second = RedisPeerLocks.redisson(Backend.REDIS, redisAddress(), WATCHDOG_TTL, true)) {
			String key = "redisson-tokens";
			long token1 = PeerLockProbes.runOnce(first, key, Duration.ZERO).fencingToken();
			long token2 = PeerLockProbes.runOnce(second, key, Duration.ZERO).fencingToken();
			long token3 = PeerLockProbes.runOnce(first, key, Duration.ZERO).fencingToken();
			assertThat(token1).isPositive();
			assertThat(token2).isGreaterThan(token1);
			assertThat(token3).isGreaterThan(token2);
		}
	}

	@ParameterizedTest(name = "fenced={0}")
	@ValueSource(booleans = { false, true })
	void redissonLocksExcludeEachOtherAndAreHeldOnSentinel(boolean fenced) throws Exception {
		String sentinels = String.join(",", sentinel().sentinelAddresses());
		try (WorkerLock first = RedisPeerLocks.redisson(Backend.SENTINEL, sentinels, WATCHDOG_TTL, fenced);
				WorkerLock second = RedisPeerLocks.redisson(Backend.SENTINEL, sentinels, WATCHDOG_TTL, fenced)) {
			PeerLockProbes.assertExclusion(first, second, "sentinel-excluded-" + fenced, WATCHDOG_TTL, false);
			PeerLockProbes.Section section = PeerLockProbes.runOnce(first, "sentinel-short-" + fenced, Duration.ZERO);
			assertThat(section.held()).isTrue();
		}
	}

	@ParameterizedTest(name = "pubSub={0}")
	@ValueSource(booleans = { false, true })
	void springIntegrationLocksExcludeEachOther(boolean pubSub) throws Exception {
		try (WorkerLock first = RedisPeerLocks.springIntegration(redisAddress(), LONG_TTL, pubSub);
				WorkerLock second = RedisPeerLocks.springIntegration(redisAddress(), TTL, pubSub)) {
			PeerLockProbes.assertExclusion(first, second, "integration-excluded-" + pubSub, TTL, false);
		}
	}

	@ParameterizedTest(name = "pubSub={0}")
	@ValueSource(booleans = { false, true })
	void springIntegrationHoldsAShortSection(boolean pubSub) throws Exception {
		try (WorkerLock lock = RedisPeerLocks.springIntegration(redisAddress(), TTL, pubSub)) {
			String key = "integration-short-" + pubSub;
			PeerLockProbes.Section section = PeerLockProbes.runOnce(lock, key, Duration.ZERO);
			assertThat(section.held()).isTrue();
			assertThat(section.fencingToken()).isZero();
			// The unlock that answered released the lock
			assertThat(redis().command("EXISTS", "lock:" + key)).isEqualTo("0");
		}
	}

	@ParameterizedTest(name = "pubSub={0}")
	@ValueSource(booleans = { false, true })
	void springIntegrationLockExpiresUnderALongSectionWhichThenIsNotHeld(boolean pubSub) throws Exception {
		// An expiry publishes nothing: a Pub/Sub waiter tries again only at the end of
		// its
		// wait, which must outlast the start of its listener (its first wait)
		try (WorkerLock first = RedisPeerLocks.springIntegration(redisAddress(), TTL, pubSub);
				WorkerLock second = RedisPeerLocks.springIntegration(redisAddress(), WAITER_TTL, pubSub)) {
			PeerLockProbes.assertTakeover(first, second, "integration-expired-" + pubSub);
		}
	}

	@Test
	void shedLocksExcludeEachOther() throws Exception {
		try (WorkerLock first = RedisPeerLocks.shedLock(redisAddress(), LONG_TTL);
				WorkerLock second = RedisPeerLocks.shedLock(redisAddress(), TTL)) {
			PeerLockProbes.assertExclusion(first, second, "shedlock-excluded", TTL, false);
		}
	}

	@Test
	void shedLockHoldsAShortSection() throws Exception {
		try (WorkerLock lock = RedisPeerLocks.shedLock(redisAddress(), TTL)) {
			PeerLockProbes.Section section = PeerLockProbes.runOnce(lock, "shedlock-short", Duration.ZERO);
			assertThat(section.held()).isTrue();
			assertThat(section.fencingToken()).isZero();
		}
	}

	@Test
	void shedLockExpiresAtLockAtMostForUnderALongSectionWhichThenIsNotHeld() throws Exception {
		try (WorkerLock first = RedisPeerLocks.shedLock(redisAddress(), TTL);
				WorkerLock second = RedisPeerLocks.shedLock(redisAddress(), TTL)) {
			PeerLockProbes.assertTakeover(first, second, "shedlock-expired");
		}
	}

	@Test
	void shedLockRethrowsAnInterruptionInsideTheSection() throws Exception {
		try (WorkerLock lock = RedisPeerLocks.shedLock(redisAddress(), TTL)) {
			InterruptedException interrupted = new InterruptedException("inside");
			try {
				lock.runLocked("shedlock-interrupted", (holding) -> {
					throw interrupted;
				});
				throw new AssertionError("Not rethrown");
			}
			catch (InterruptedException ex) {
				assertThat(ex).isSameAs(interrupted);
			}
			// Released on the way out
			assertThat(PeerLockProbes.runOnce(lock, "shedlock-interrupted", Duration.ZERO).held()).isTrue();
		}
	}

	private static String redisAddress() {
		RedisServer server = redis();
		return server.host() + ":" + server.port();
	}

	private static RedisServer redis() {
		RedisServer server = redis;
		assertThat(server).isNotNull();
		return server;
	}

	private static RedisSentinel sentinel() {
		RedisSentinel setup = sentinel;
		assertThat(setup).isNotNull();
		return setup;
	}

}
