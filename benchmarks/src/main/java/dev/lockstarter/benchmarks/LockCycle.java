package dev.lockstarter.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;

/**
 * One way of taking an uncontended lock and releasing it again: the operation every lock
 * benchmark measures. Implementations are thread-safe and own their client, which
 * {@link #close()} shuts down.
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

	/**
	 * The cycle of a registry of {@link Lock}s, such as Spring Integration's:
	 * {@code obtain(key).tryLock()}, then {@code unlock()}.
	 * @param registry the registry's {@code obtain}
	 * @param close what closes the registry's client
	 * @return the cycle
	 */
	static LockCycle tryLock(Function<String, Lock> registry, Runnable close) {
		return new LockCycle() {

			@Override
			public boolean cycle(String key) {
				Lock lock = registry.apply(key);
				if (!lock.tryLock()) {
					return false;
				}
				lock.unlock();
				return true;
			}

			@Override
			public void close() {
				close.run();
			}

		};
	}

	/**
	 * The cycle of a ShedLock {@link LockProvider}: {@code lock(configuration)} with the
	 * time-to-live as {@code lockAtMostFor}, then {@code unlock()}.
	 * @param provider the provider
	 * @param ttl the lock's time-to-live
	 * @param close what closes the provider's client
	 * @return the cycle
	 */
	static LockCycle shedLock(LockProvider provider, Duration ttl, Runnable close) {
		return new LockCycle() {

			@Override
			public boolean cycle(String key) {
				Optional<SimpleLock> lock = provider
					.lock(new LockConfiguration(Instant.now(), key, ttl, Duration.ZERO));
				if (lock.isEmpty()) {
					return false;
				}
				lock.get().unlock();
				return true;
			}

			@Override
			public void close() {
				close.run();
			}

		};
	}

	/**
	 * The cycle of this starter's {@link LockTemplate} on a store: {@code acquire(key,
	 * ttl)}, then the lease's release.
	 * @param store the store
	 * @param ttl the lock's time-to-live
	 * @param close what closes the store and its client, after the template
	 * @return the cycle
	 */
	static LockCycle lockTemplate(LockStore store, Duration ttl, Runnable close) {
		LockTemplate locks = new LockTemplate(store);
		return new LockCycle() {

			@Override
			public boolean cycle(String key) {
				try (Lease lease = locks.acquire(key, ttl)) {
					return true;
				}
				catch (LockConflictException ex) {
					return false;
				}
			}

			@Override
			public void close() {
				locks.destroy();
				close.run();
			}

		};
	}

}
