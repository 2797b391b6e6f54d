package dev.lockstarter.store.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.SharedLockStore;

/**
 * Counts the holders of a shared lock inside their critical sections, from threads on two
 * {@link LockTemplate}s (two application instances). A holder counts itself once granted
 * and stops counting before it releases, so the count never exceeds the places the store
 * holds: a count above the limit is a broken lock, never a race of the checker.
 */
final class SharedLockChecker {

	/** How many times the threads enter in all. */
	static final int ENTRIES = 48;

	private static final int THREADS = 8;

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(60);

	private SharedLockChecker() {
	}

	/** Enter a {@code permits} lock {@link #ENTRIES} times from 8 threads. */
	static Result permits(LockTemplate first, LockTemplate second, String key, int permits) throws Exception {
		LockOptions options = LockOptions.ttl(TTL).withWaitTime(WAIT).withKind(LockKind.permits(permits));
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger max = new AtomicInteger();
		AtomicInteger entries = new AtomicInteger();
		run(first, second, (locks) -> {
			while (entries.incrementAndGet() <= ENTRIES) {
				try (Lease lease = locks.acquire(key, options)) {
					max.accumulateAndGet(inside.incrementAndGet(), Math::max);
					Thread.sleep(15);
					inside.decrementAndGet();
				}
			}
			return null;
		});
		return new Result(max.get(), ENTRIES, false, 0);
	}

	/**
	 * Enter a read/write lock from 6 reading and 2 writing threads; a writer checks that
	 * no one else is inside, a reader that no writer is.
	 */
	static Result readersAndWriters(LockTemplate first, LockTemplate second, String key) throws Exception {
		LockOptions read = LockOptions.ttl(TTL).withWaitTime(WAIT).withKind(LockKind.READ);
		LockOptions write = LockOptions.ttl(TTL).withWaitTime(WAIT).withKind(LockKind.WRITE);
		AtomicInteger readers = new AtomicInteger();
		AtomicInteger writers = new AtomicInteger();
		AtomicInteger max = new AtomicInteger();
		AtomicInteger writes = new AtomicInteger();
		AtomicBoolean met = new AtomicBoolean();
		AtomicInteger threadIndex = new AtomicInteger();
		run(first, second, (locks) -> {
			boolean writer = threadIndex.getAndIncrement() < 2;
			for (int i = 0; i < ENTRIES / THREADS; i++) {
				try (Lease lease = locks.acquire(key, writer ? write : read)) {
					if (writer) {
						if (writers.incrementAndGet() > 1 || readers.get() > 0) {
							met.set(true);
						}
						Thread.sleep(15);
						if (readers.get() > 0) {
							met.set(true);
						}
						writers.decrementAndGet();
						writes.incrementAndGet();
					}
					else {
						max.accumulateAndGet(readers.incrementAndGet(), Math::max);
						if (writers.get() > 0) {
							met.set(true);
						}
						Thread.sleep(15);
						readers.decrementAndGet();
					}
				}
			}
			return null;
		});
		return new Result(max.get(), ENTRIES, met.get(), writes.get());
	}

	/**
	 * Start {@code threads} readers that hand over: each takes a new read place before it
	 * gives up its last, so the key never lacks a reader unless a read is refused.
	 */
	static ReaderStream readerStream(SharedLockStore first, SharedLockStore second, String key, int threads) {
		return new ReaderStream(first, second, key, threads);
	}

	private static void run(LockTemplate first, LockTemplate second, Task task) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(THREADS);
		try {
			List<Future<Void>> futures = new ArrayList<>();
			for (int i = 0; i < THREADS; i++) {
				LockTemplate locks = (i % 2 == 0) ? first : second;
				futures.add(executor.submit((Callable<Void>) () -> task.run(locks)));
			}
			for (Future<Void> future : futures) {
				future.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@FunctionalInterface
	private interface Task {

		Void run(LockTemplate locks) throws Exception;

	}

	/**
	 * What the threads saw.
	 *
	 * @param maxInside the most holders (readers, for a read/write lock) inside at once
	 * @param entries how many times the threads entered
	 * @param writerMetOthers whether a writer was inside with another holder
	 * @param writes how many times a writer entered
	 */
	record Result(int maxInside, int entries, boolean writerMetOthers, int writes) {

	}

	/** Readers that keep arriving, until closed. */
	static final class ReaderStream implements AutoCloseable {

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger refused = new AtomicInteger();

		private final AtomicBoolean stopped = new AtomicBoolean();

		private final List<Thread> threads = new ArrayList<>();

		private ReaderStream(SharedLockStore first, SharedLockStore second, String key, int count) {
			for (int i = 0; i < count; i++) {
				SharedLockStore store = (i % 2 == 0) ? first : second;
				Thread thread = new Thread(() -> read(store, key), "reader-" + i);
				thread.setDaemon(true);
				thread.start();
				this.threads.add(thread);
			}
		}

		private void read(SharedLockStore store, String key) {
			String held = null;
			try {
				while (!this.stopped.get()) {
					String next = UUID.randomUUID().toString();
					boolean granted = store.tryAcquireRead(key, next, TTL).isAcquired();
					if (granted) {
						this.inside.incrementAndGet();
					}
					else {
						this.refused.incrementAndGet();
					}
					if (held != null) {
						this.inside.decrementAndGet();
						store.releaseShared(key, held);
					}
					held = granted ? next : null;
					Thread.sleep(20);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				if (held != null) {
					this.inside.decrementAndGet();
					store.releaseShared(key, held);
				}
			}
		}

		/** Wait until every reader holds a place. */
		void awaitOverlapping() throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
			while (this.inside.get() < this.threads.size()) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("The readers did not all enter in 10 s");
				}
				Thread.sleep(10);
			}
		}

		int readersInside() {
			return this.inside.get();
		}

		int refusals() {
			return this.refused.get();
		}

		@Override
		public void close() throws InterruptedException {
			this.stopped.set(true);
			for (Thread thread : this.threads) {
				thread.join(10_000);
			}
		}

	}

}
