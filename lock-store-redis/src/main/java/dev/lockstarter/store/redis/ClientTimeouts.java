package dev.lockstarter.store.redis;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How long the store waits for Redis: the timeout of an operation and the time a caller
 * spins for an answer, checked and handed to the {@link RedisCommandExecutor}.
 */
final class ClientTimeouts {

	private final RedisCommandExecutor executor;

	private volatile Duration timeout = RedisLockStore.DEFAULT_TIMEOUT;

	ClientTimeouts(RedisCommandExecutor executor) {
		this.executor = executor;
	}

	void setTimeout(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isNegative() && !timeout.isZero(), "'timeout' must be positive");
		this.timeout = timeout;
		this.executor.setTimeout(timeout);
	}

	Duration getTimeout() {
		return this.timeout;
	}

	void setReplySpin(Duration replySpin) {
		Assert.notNull(replySpin, "'replySpin' must not be null");
		Assert.isTrue(!replySpin.isNegative(), "'replySpin' must not be negative");
		this.executor.setReplySpin(replySpin);
	}

	Duration getReplySpin() {
		return this.executor.getReplySpin();
	}

}
