package dev.lockstarter.reliability;

import java.util.concurrent.locks.Lock;

/**
 * A lock of one of Spring Integration's registries, which report a lost lock by an
 * {@code unlock()} that throws: {@link #isHeld()} is that unlock, true when it returns
 * normally. Asked on the thread that took the lock, as the registries' locks belong to a
 * thread.
 */
final class UnlockChecked implements WorkerLock.Held {

	private final Lock lock;

	private boolean unlocked;

	UnlockChecked(Lock lock) {
		this.lock = lock;
	}

	@Override
	public long fencingToken() {
		return 0;
	}

	/**
	 * Unlock, which releases the lock: the registries throw
	 * {@link java.util.ConcurrentModificationException} when another owns it, and any
	 * failure means that the store could not confirm it.
	 */
	@Override
	public boolean isHeld() {
		if (this.unlocked) {
			return false;
		}
		this.unlocked = true;
		try {
			this.lock.unlock();
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	@Override
	public void release() {
		if (this.unlocked) {
			return;
		}
		this.unlocked = true;
		try {
			this.lock.unlock();
		}
		catch (RuntimeException ex) {
			// Lost, or the store is out of reach: the lock expires
		}
	}

}
