package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import static dev.lockstarter.test.adapter.AdapterUnderTest.LONG_TTL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzz tests of each adapter: threads spread over three instances of the adapter run
 * read-sleep-write critical sections on two keys, and the {@link LostUpdateChecker} finds
 * no lost update and no overlap. Locks live far longer than a section, so only a lock
 * that does not exclude can lose an update.
 */
interface AdapterFuzzContract extends AdapterContract {

	/** How many instances of each adapter the threads are spread over. */
	int INSTANCES = 3;

	/** How long a waiting acquisition waits before the checker tries again. */
	Duration WAIT = Duration.ofMillis(200);

	@Test
	default void lockRegistriesOfSeveralInstancesLoseNoUpdate() {
		AdapterUnderTest fixture = adapterUnderTest();
		List<LostUpdateChecker.Locker> instances = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			RenewableLockRegistry<DistributedLock> registry = fixture.newRegistry(LockOptions.ttl(LONG_TTL));
			// The threads of some instances wait, the others try once
			boolean waits = (i % 2 == 0);
			instances.add((key) -> {
				DistributedLock lock = registry.obtain(key);
				boolean acquired = waits ? lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS) : lock.tryLock();
				return acquired ? lock::unlock : null;
			});
		}
		assertConsistent(fixture, instances);
	}

	@Test
	default void lockProvidersOfSeveralInstancesLoseNoUpdate() {
		AdapterUnderTest fixture = adapterUnderTest();
		List<LostUpdateChecker.Locker> instances = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			ExtensibleLockProvider provider = fixture.newProvider();
			instances.add((key) -> {
				Optional<SimpleLock> lock = provider
					.lock(new LockConfiguration(Instant.now(), key, LONG_TTL, Duration.ZERO));
				return lock.<LostUpdateChecker.Handle>map((held) -> held::unlock).orElse(null);
			});
		}
		assertConsistent(fixture, instances);
	}

	@Test
	default void javaLocksOfSeveralInstancesLoseNoUpdate() {
		AdapterUnderTest fixture = adapterUnderTest();
		List<LostUpdateChecker.Locker> instances = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			// The threads of an instance share its lock of each key, as library code
			// would
			LockTemplate instance = fixture.newInstance();
			Map<String, Lock> locks = new ConcurrentHashMap<>();
			instances.add((key) -> {
				Lock lock = locks.computeIfAbsent(key, (k) -> fixture.lock(instance, k, LockOptions.ttl(LONG_TTL)));
				return lock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS) ? lock::unlock : null;
			});
		}
		assertConsistent(fixture, instances);
	}

	private static void assertConsistent(AdapterUnderTest fixture, List<LostUpdateChecker.Locker> instances) {
		List<String> keys = List.of(fixture.uniqueKey("fuzz-a"), fixture.uniqueKey("fuzz-b"));
		LostUpdateChecker.Result result = fixture.lostUpdateChecker().check(keys, instances);
		assertThat(result.failures()).as(result.toString()).isEmpty();
		assertThat(result.lostUpdates()).as(result.toString()).isZero();
		assertThat(result.overlaps()).as(result.toString()).isZero();
		assertThat(result.sections()).as(result.toString()).isPositive();
	}

}
