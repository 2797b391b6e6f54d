package dev.lockstarter.test.adapter;

import java.util.ConcurrentModificationException;
import java.util.concurrent.locks.Lock;

import dev.lockstarter.core.LockNotHeldException;
import dev.lockstarter.core.LockOptions;

/**
 * The adapters that hand out a {@link Lock}, each a factory of locks on an instance of
 * its own, and what its unlock throws once the lock expired and was taken over.
 */
enum LockFactory {

	/** The locks of Spring Integration's registry, one registry per lock. */
	DISTRIBUTED_LOCK(ConcurrentModificationException.class) {

		@Override
		Lock newLock(AdapterUnderTest fixture, String key, LockOptions options) {
			return fixture.newRegistry(options).obtain(key);
		}

	},

	/**
	 * The locks of {@link dev.lockstarter.core.LockOperations#lock(String, LockOptions)}.
	 */
	JAVA_LOCK(LockNotHeldException.class) {

		@Override
		Lock newLock(AdapterUnderTest fixture, String key, LockOptions options) {
			return fixture.newLock(key, options);
		}

	};

	private final Class<? extends RuntimeException> lostLockException;

	LockFactory(Class<? extends RuntimeException> lostLockException) {
		this.lostLockException = lostLockException;
	}

	/**
	 * Return a lock of a key, on an instance of its own.
	 * @param fixture the adapters under test
	 * @param key the key
	 * @param options the options of the lock (of its registry)
	 * @return the lock
	 */
	abstract Lock newLock(AdapterUnderTest fixture, String key, LockOptions options);

	/**
	 * Return what the unlock of a lock that expired and was taken over throws.
	 * @return the type of the exception
	 */
	Class<? extends RuntimeException> lostLockException() {
		return this.lostLockException;
	}

}
