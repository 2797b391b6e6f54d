package dev.lockstarter.core;

import java.util.Optional;

import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * The {@link LockResults} of a {@link LockTemplate} whose store keeps results. Each try
 * of {@link #tryAcquireReadingResult} is one call of
 * {@link ResultStoringLockStore#tryAcquireReadingResult}.
 */
final class TemplateResults implements LockResults {

	private final LockEngine engine;

	private final ResultStoringLockStore store;

	private final BlockingWaiter waiter;

	TemplateResults(LockEngine engine, ResultStoringLockStore store, BlockingWaiter waiter) {
		this.engine = engine;
		this.store = store;
		this.waiter = waiter;
	}

	@Override
	public Optional<byte[]> findResult(String key) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		return Optional.ofNullable(this.store.getResult(this.engine.storeKeys().storeKey(key)));
	}

	@Override
	public LockAttemptWithResult tryAcquireReadingResult(String key, LockOptions options) {
		Assert.isTrue(StringUtils.hasText(key), "'key' must not be blank");
		Assert.notNull(options, "'options' must not be null");
		KeyAcquirer.ResultReading reading = new KeyAcquirer.ResultReading(this.store);
		LockAttempt outcome = this.waiter.observed(this.engine.attempt(key, options, reading, LeaseKind.HELD), null);
		return new LockAttemptWithResult(outcome, reading.keptResult());
	}

}
