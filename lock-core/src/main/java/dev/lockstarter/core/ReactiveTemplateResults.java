package dev.lockstarter.core;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import dev.lockstarter.store.ReactiveResultStoringLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * The {@link ReactiveLockResults} of a {@link ReactiveLockTemplate} whose store keeps
 * results: read and written without blocking on a {@link ReactiveResultStoringLockStore},
 * on the blocking scheduler on any other.
 */
final class ReactiveTemplateResults implements ReactiveLockResults {

	private final StoreKeys storeKeys;

	private final ResultStoringLockStore blocking;

	private final @Nullable ReactiveResultStoringLockStore reactive;

	private final Scheduler blockingScheduler;

	ReactiveTemplateResults(StoreCapabilities store, StoreKeys storeKeys, ResultStoringLockStore blocking,
			Scheduler blockingScheduler) {
		this.storeKeys = storeKeys;
		this.blocking = blocking;
		this.reactive = store.reactiveResults();
		this.blockingScheduler = blockingScheduler;
	}

	@Override
	public Mono<Boolean> putResult(Lease lease, byte[] result, Duration ttl) {
		Assert.notNull(lease, "'lease' must not be null");
		KeptResults.check(result, ttl);
		ReactiveResultStoringLockStore reactive = this.reactive;
		StoreLease single = (reactive != null) ? LockCapabilities.singleKey(lease) : null;
		if (reactive == null || single == null) {
			return Mono.fromCallable(() -> lease.putResult(result, ttl)).subscribeOn(this.blockingScheduler);
		}
		return ReactiveStoreCalls.failing(Mono.defer(() -> (single.state() != StoreLease.State.HELD) ? Mono.just(false)
				: reactive.putResultReactive(single.storeKey(), single.token(), result, ttl).defaultIfEmpty(false)),
				single.key(), "store the result of");
	}

	@Override
	public Mono<byte[]> findResult(String key) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		String storeKey = this.storeKeys.storeKey(key);
		ReactiveResultStoringLockStore reactive = this.reactive;
		if (reactive == null) {
			return Mono.fromCallable(() -> this.blocking.getResult(storeKey)).subscribeOn(this.blockingScheduler);
		}
		return ReactiveStoreCalls.failing(Mono.defer(() -> reactive.getResultReactive(storeKey)), key,
				"read the result of");
	}

}
