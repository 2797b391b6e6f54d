package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.ReactiveLockResults;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ReactiveResultStoringLockStore;
import dev.lockstarter.store.ResultStoringLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Results kept reactively: on a store that keeps results
 * ({@link ResultStoringLockStore}), {@link ReactiveLockTemplate} keeps and finds them
 * with the semantics of the blocking operations, and a
 * {@link ReactiveResultStoringLockStore} matches its own blocking operations, operation
 * by operation; a store that keeps none says so. Cases that need an ability the store
 * lacks are skipped, naming it.
 */
interface ReactiveResultContract extends ReactiveTemplateContract {

	@Test
	default void resultKeptReactivelyIsFoundByReactiveAndBlockingCallers() {
		assumeKeepsResults(this);
		String key = uniqueKey("result");
		assertThat(reactiveResults().findResult(key).blockOptional(BLOCK)).isEmpty();
		Lease lease = acquired(key);
		byte[] result = { 1, 2, 3, 0, -1 };
		assertThat(reactiveResults().putResult(lease, result, LONG_TTL).block(BLOCK)).isTrue();
		assertThat(reactiveLocks().release(lease).block(BLOCK)).isTrue();
		assertThat(reactiveResults().findResult(key).block(BLOCK)).containsExactly(result);
		assertThat(locks().results().orElseThrow().findResult(key))
			.hasValueSatisfying((found) -> assertThat(found).containsExactly(result));
		try (Lease blocking = locks().acquire(key, LONG_TTL)) {
			assertThat(blocking.putResult(new byte[] { 7 }, LONG_TTL)).isTrue();
		}
		assertThat(reactiveResults().findResult(key).block(BLOCK)).containsExactly(7);
	}

	@Test
	default void resultOfALeaseThatNoLongerHoldsItsLockIsNotKept() {
		assumeKeepsResults(this);
		String key = uniqueKey("released-result");
		Lease lease = acquired(key);
		assertThat(reactiveLocks().release(lease).block(BLOCK)).isTrue();
		assertThat(reactiveResults().putResult(lease, new byte[] { 1 }, LONG_TTL).block(BLOCK)).isFalse();
		assertThat(reactiveResults().findResult(key).blockOptional(BLOCK)).isEmpty();
	}

	@Test
	default void keptResultExpiresAfterItsTimeToLive() throws Exception {
		assumeKeepsResults(this);
		String key = uniqueKey("expiring-result");
		Lease lease = acquired(key);
		assertThat(reactiveResults().putResult(lease, new byte[] { 1 }, Duration.ofSeconds(1)).block(BLOCK)).isTrue();
		reactiveLocks().release(lease).block(BLOCK);
		assertThat(reactiveResults().findResult(key).blockOptional(BLOCK)).isPresent();
		await().alias("result expired in time")
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(50))
			.pollInSameThread()
			.until(() -> reactiveResults().findResult(key).blockOptional(BLOCK).isEmpty());
	}

	@Test
	default void storeThatKeepsNoResultsOffersNone() {
		Assumptions.assumeFalse(store() instanceof ResultStoringLockStore, () -> storeName(store())
				+ " keeps results (ResultStoringLockStore): the case runs on a store that keeps none");
		assertThat(reactiveLocks().results()).isEmpty();
		assertThat(locks().results()).isEmpty();
	}

	@Test
	default void reactiveResultOperationsMatchTheBlockingOnes() {
		Assumptions.assumeTrue(store() instanceof ReactiveResultStoringLockStore,
				() -> storeName(store()) + " does not keep results reactively (not a ReactiveResultStoringLockStore)");
		ReactiveResultStoringLockStore reactive = (ReactiveResultStoringLockStore) store();
		String key = "reactive-result-" + UUID.randomUUID();
		assertThat(reactive.getResultReactive(key).blockOptional(BLOCK)).isEmpty();
		assertThat(reactive.putResultReactive(key, "nobody", new byte[] { 1 }, LONG_TTL).block(BLOCK)).isFalse();
		assertThat(reactive.getResultReactive(key).blockOptional(BLOCK)).isEmpty();
		assertThat(store().tryAcquire(key, "one", LONG_TTL).isAcquired()).isTrue();
		assertThat(reactive.putResultReactive(key, "two", new byte[] { 2 }, LONG_TTL).block(BLOCK)).isFalse();
		assertThat(reactive.putResultReactive(key, "one", new byte[] { 1, 1 }, LONG_TTL).block(BLOCK)).isTrue();
		assertThat(reactive.getResultReactive(key).block(BLOCK)).containsExactly(1, 1);
		assertThat(reactive.getResult(key)).containsExactly(1, 1);
		reactive.putResultReactive(key, "one", new byte[] { 3 }, LONG_TTL);
		assertThat(reactive.getResult(key)).as("lazy until subscribed").containsExactly(1, 1);
		assertThat(store().release(key, "one")).isTrue();
		assertThat(reactive.putResultReactive(key, "one", new byte[] { 4 }, LONG_TTL).block(BLOCK)).isFalse();
		assertThat(reactive.getResultReactive(key).block(BLOCK)).containsExactly(1, 1);
	}

	private Lease acquired(String key) {
		Lease lease = reactiveLocks().acquire(key, LockOptions.ttl(LONG_TTL)).block(BLOCK);
		if (lease == null) {
			throw new AssertionError("Completed without a lease");
		}
		return lease;
	}

	private ReactiveLockResults reactiveResults() {
		return reactiveLocks().results().orElseThrow();
	}

	private static void assumeKeepsResults(ReactiveResultContract contract) {
		Assumptions.assumeTrue(contract.locks().results().isPresent(),
				() -> storeName(contract.store()) + " keeps no results (not a ResultStoringLockStore)");
	}

	static String storeName(LockStore store) {
		return store.getClass().getSimpleName();
	}

}
