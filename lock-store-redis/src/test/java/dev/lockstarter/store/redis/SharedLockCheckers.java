package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;

/**
 * Checkers that count the holders inside a shared lock while threads of several instances
 * take it, wait for it and release it: how many were inside at once, and whether a reader
 * and a writer (or two writers) were ever inside together. Each count is raised after the
 * lease is granted and lowered before it is released, so it never exceeds the places
 * really held: a count above the limit is a broken lock.
 */
final class SharedLockCheckers {

	private static final Duration HOLD = Duration.ofMillis(3);

	private SharedLockCheckers() {
	}

	/**
	 * Take a lock of a kind {@code rounds} times on each of {@code threads} threads,
	 * spread over the instances, each waiting as long as it takes.
	 * @return the most holders seen inside at once, and the fencing tokens granted
	 */
	static Permits permits(List<LockTemplate> instances, String key, LockKind kind, int threads, int rounds)
			throws Exception {
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		Set<Long> fencingTokens = ConcurrentHashMap.newKeySet();
		AtomicInteger grants = new AtomicInteger();
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(10))
			.withKind(kind)
			.withWaitTime(Duration.ofSeconds(60));
		run(instances, threads, (locks, thread) -> {
			for (int round = 0; round < rounds; round++) {
				try (Lease lease = locks.acquire(key, options)) {
					grants.incrementAndGet();
					fencingTokens.add(lease.fencingToken());
					most.accumulateAndGet(inside.incrementAndGet(), Math::max);
					Thread.sleep(HOLD.toMillis());
					inside.decrementAndGet();
				}
			}
		});
		return new Permits(most.get(), grants.get(), fencingTokens.size());
	}

	/**
	 * Readers and writers on {@code threads} threads, one in four a writer, each taking
	 * the lock {@code rounds} times, waiting as long as it takes.
	 * @param writerKind the kind the writers take: {@link LockKind#WRITE}, or something
	 * else for a negative control
	 * @return the most readers seen inside at once, and how often a writer was seen with
	 * another holder
	 */
	static ReadersAndWriters readersAndWriters(List<LockTemplate> instances, String key, LockKind writerKind,
			int threads, int rounds) throws Exception {
		AtomicInteger readers = new AtomicInteger();
		AtomicInteger writers = new AtomicInteger();
		AtomicInteger mostReaders = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		LockOptions base = LockOptions.ttl(Duration.ofSeconds(10)).withWaitTime(Duration.ofSeconds(60));
		run(instances, threads, (locks, thread) -> {
			boolean writer = thread % 4 == 0;
			LockOptions options = base.withKind(writer ? writerKind : LockKind.READ);
			for (int round = 0; round < rounds; round++) {
				try (Lease lease = locks.acquire(key, options)) {
					if (writer) {
						if (writers.incrementAndGet() > 1 || readers.get() > 0) {
							overlaps.incrementAndGet();
						}
						Thread.sleep(HOLD.toMillis());
						if (readers.get() > 0) {
							overlaps.incrementAndGet();
						}
						writers.decrementAndGet();
					}
					else {
						mostReaders.accumulateAndGet(readers.incrementAndGet(), Math::max);
						if (writers.get() > 0) {
							overlaps.incrementAndGet();
						}
						Thread.sleep(HOLD.toMillis());
						readers.decrementAndGet();
					}
				}
			}
		});
		return new ReadersAndWriters(mostReaders.get(), overlaps.get());
	}

	private static void run(List<LockTemplate> instances, int threads, Body body) throws Exception {
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> done = new ArrayList<>();
			for (int thread = 0; thread < threads; thread++) {
				LockTemplate locks = instances.get(thread % instances.size());
				int index = thread;
				done.add(executor.submit(() -> {
					start.await();
					body.run(locks, index);
					return null;
				}));
			}
			start.countDown();
			for (Future<?> future : done) {
				future.get(120, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@FunctionalInterface
	private interface Body {

		void run(LockTemplate locks, int thread) throws Exception;

	}

	/**
	 * What the permits checker saw.
	 *
	 * @param mostInside the most holders inside at once
	 * @param grants the leases granted
	 * @param distinctFencingTokens the distinct fencing tokens among them
	 */
	record Permits(int mostInside, int grants, int distinctFencingTokens) {
	}

	/**
	 * What the readers-and-writers checker saw.
	 *
	 * @param mostReaders the most readers inside at once
	 * @param overlaps how often a writer was inside with another holder
	 */
	record ReadersAndWriters(int mostReaders, int overlaps) {
	}

}
