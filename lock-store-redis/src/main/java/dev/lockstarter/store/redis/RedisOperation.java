package dev.lockstarter.store.redis;

import dev.lockstarter.store.LockStoreException;

/**
 * What the store is doing, on which lock, so that every failure names both: the operation
 * reads after "could not", such as {@code "acquire"} or {@code "read the result of"}.
 *
 * @param operation the operation, as a verb phrase
 * @param key the store key of the lock (the first of several)
 */
record RedisOperation(String operation, String key) {

	/**
	 * Return the failure of an operation that Redis did not answer in time.
	 * @param waitedMillis the time the operation was allowed, in milliseconds
	 * @param cause the timeout
	 * @return the failure, naming {@code lock.redis.timeout}
	 */
	LockStoreException timedOut(long waitedMillis, Throwable cause) {
		return new LockStoreException(this.key, "Redis lock store could not " + this.operation + " lock '" + this.key
				+ "': Redis did not answer within " + waitedMillis + " ms (lock.redis.timeout)", cause);
	}

	/**
	 * Return the failure of an operation that Redis or the client refused.
	 * @param cause the cause
	 * @return the failure
	 */
	LockStoreException failed(Throwable cause) {
		return new LockStoreException(this.key,
				"Redis lock store failed to " + this.operation + " lock '" + this.key + "'", cause);
	}

	/**
	 * Return the failure of an operation whose caller was interrupted while it waited.
	 * @param cause the interruption
	 * @return the failure
	 */
	LockStoreException interrupted(InterruptedException cause) {
		return new LockStoreException(this.key,
				"Redis lock store was interrupted while waiting to " + this.operation + " lock '" + this.key + "'",
				cause);
	}

}
