package dev.lockstarter.benchmarks;

/**
 * One way of taking an uncontended lock on Redis and releasing it again: the operation
 * every lock benchmark measures. Implementations are thread-safe and own their client,
 * which {@link #close()} shuts down.
 */
interface LockCycle extends AutoCloseable {

	/**
	 * Acquire the lock on a key, without waiting, and release it.
	 * @param key the key; the implementation may add its library's usual prefix
	 * @return whether the lock was acquired (and so released)
	 */
	boolean cycle(String key);

	@Override
	void close();

}
