package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.ReactiveLockStore;

import static dev.lockstarter.test.contract.ReactiveTemplateContract.value;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operations of a {@link ReactiveLockStore}, each against the store's own blocking
 * ones: the same answers, fencing tokens with every reactive acquisition, and nothing
 * done before a subscription. Skipped for a store without reactive operations.
 */
interface ReactiveStoreOperationsContract extends ReactiveTemplateContract {

	@Test
	default void reactiveStoreOperationsMatchTheBlockingOnes() {
		ReactiveLockStore reactive = assumeReactive();
		String key = "reactive-store-" + UUID.randomUUID();
		AcquireReply acquired = value(reactive.tryAcquireReactive(key, "one", LONG_TTL));
		assertThat(acquired.isAcquired()).isTrue();
		AcquireReply held = value(reactive.tryAcquireReactive(key, "two", LONG_TTL));
		assertThat(held.isAcquired()).isFalse();
		assertThat(held.holderRemainingTtl()).isGreaterThan(Duration.ofSeconds(20));
		assertThat(store().tryAcquire(key, "two", LONG_TTL).isAcquired()).isFalse();
		assertThat(reactive.extendReactive(key, "two", LONG_TTL).block(BLOCK)).isFalse();
		assertThat(reactive.releaseReactive(key, "two").block(BLOCK)).isFalse();
		assertThat(reactive.extendReactive(key, "one", Duration.ofMillis(300)).block(BLOCK)).isTrue();
		assertThat(store().tryAcquire(key, "two", LONG_TTL).isAcquired()).isFalse();
		assertThat(reactive.releaseReactive(key, "one").block(BLOCK)).isTrue();
		assertThat(reactive.releaseReactive(key, "one").block(BLOCK)).isFalse();
		assertThat(store().tryAcquire(key, "three", LONG_TTL).isAcquired()).isTrue();
		assertThat(reactive.releaseReactive(key, "three").block(BLOCK)).isTrue();
		AcquireReply again = value(reactive.tryAcquireReactive(key, "four", LONG_TTL));
		assertThat(again.isAcquired()).isTrue();
		// A reactive acquisition comes with its token, also from a store that draws its
		// blocking acquisitions' tokens on demand
		if (declaredFencing().check("fencing tokens of two reactive acquisitions of one key",
				List.of(acquired.fencingToken(), again.fencingToken()))) {
			assertThat(again.fencingToken()).isGreaterThan(acquired.fencingToken());
		}
		assertThat(store().release(key, "four")).isTrue();
	}

	@Test
	default void reactiveStoreOperationsAreLazy() {
		ReactiveLockStore reactive = assumeReactive();
		String key = "lazy-" + UUID.randomUUID();
		reactive.tryAcquireReactive(key, "unsubscribed", LONG_TTL);
		assertThat(store().tryAcquire(key, "other", LONG_TTL).isAcquired()).isTrue();
		assertThat(store().release(key, "other")).isTrue();
	}

	private ReactiveLockStore assumeReactive() {
		Assumptions.assumeTrue(store() instanceof ReactiveLockStore, () -> ReactiveResultContract.storeName(store())
				+ " has no reactive operations (not a ReactiveLockStore): reached on the bounded elastic scheduler");
		return (ReactiveLockStore) store();
	}

}
