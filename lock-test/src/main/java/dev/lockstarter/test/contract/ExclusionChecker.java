package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Checks that a lock excludes: several threads contend on a few keys and every thread
 * that acquires a key holds it briefly, then releases it. The checker detects two owners
 * at once in two independent ways:
 * <ul>
 * <li>a per-key count of holders, which must be zero whenever a thread acquires
 * ({@linkplain Result#violations() violations});</li>
 * <li>the recorded hold intervals, taken on the monotonic clock after the acquisition
 * returned and before the release is called, which must not overlap for the same key
 * ({@linkplain Result#overlaps() overlaps}).</li>
 * </ul>
 * The checker is independent of any lock API: it drives a {@link Locker}, a function from
 * a key to a {@link Handle} (or {@code null} when the key is taken), or, for locks on
 * several keys at once, a {@link MultiKeyLocker} through {@link #checkSets}, which counts
 * an acquisition of a set as a holder of each of its keys.
 *
 * <pre class="code">
 * ExclusionChecker.Result result = new ExclusionChecker().threads(8).attemptsPerThread(300)
 *     .check(List.of("a", "b"), (key) -&gt; {
 *         String token = UUID.randomUUID().toString();
 *         return store.tryAcquire(key, token, Duration.ofSeconds(10)).isAcquired()
 *                 ? () -&gt; store.release(key, token) : null;
 *     });
 * assertThat(result.overlaps()).as(result.toString()).isZero();
 * </pre>
 *
 * A lock with a time-to-live must be given one far longer than a hold, or an expiry
 * during a long pause of a holder is reported as an overlap.
 *
 * @since 0.1.0
 */
public final class ExclusionChecker {

	private int threads = 8;

	private int attemptsPerThread = 200;

	private Duration holdTime = Duration.ofNanos(20_000);

	private Duration timeout = Duration.ofSeconds(30);

	/**
	 * Set the number of contending threads; 8 by default.
	 * @param threads the number of threads, at least 2
	 * @return this checker
	 */
	public ExclusionChecker threads(int threads) {
		Assert.isTrue(threads >= 2, () -> "'threads' must be at least 2, was " + threads);
		this.threads = threads;
		return this;
	}

	/**
	 * Set the number of acquisition attempts of each thread; 200 by default. Each attempt
	 * picks one of the keys at random.
	 * @param attemptsPerThread the number of attempts, positive
	 * @return this checker
	 */
	public ExclusionChecker attemptsPerThread(int attemptsPerThread) {
		Assert.isTrue(attemptsPerThread > 0, () -> "'attemptsPerThread' must be positive, was " + attemptsPerThread);
		this.attemptsPerThread = attemptsPerThread;
		return this;
	}

	/**
	 * Set how long a thread holds a key it acquired, spinning; 20 µs by default.
	 * @param holdTime the hold time, not negative
	 * @return this checker
	 */
	public ExclusionChecker holdTime(Duration holdTime) {
		Assert.notNull(holdTime, "'holdTime' must not be null");
		Assert.isTrue(!holdTime.isNegative(), () -> "'holdTime' must not be negative, was " + holdTime);
		this.holdTime = holdTime;
		return this;
	}

	/**
	 * Set how long the whole check may take before it fails; 30 seconds by default.
	 * @param timeout the timeout, positive
	 * @return this checker
	 */
	public ExclusionChecker timeout(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isNegative() && !timeout.isZero(), () -> "'timeout' must be positive, was " + timeout);
		this.timeout = timeout;
		return this;
	}

	/**
	 * Run the threads against the lock and report what happened.
	 * @param keys the keys to contend on; fewer keys than threads make contention likely
	 * @param locker the lock under test
	 * @return the result
	 * @throws IllegalStateException if the threads do not finish within the timeout
	 */
	public Result check(List<String> keys, Locker locker) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		Assert.noNullElements(keys, "'keys' must not contain null elements");
		Assert.notNull(locker, "'locker' must not be null");
		return run(keys.stream().map(List::of).toList(), (set) -> locker.tryAcquire(set.get(0)));
	}

	/**
	 * Run the threads against a lock on several keys at once and report what happened.
	 * Each attempt picks one of the key sets at random and asks the locker for all of its
	 * keys; an acquisition counts as a holder of every key of the set for the hold time,
	 * so two sets that share a key must never be held at once. Listing the same keys in
	 * several orders ({@code [a, b]} and {@code [b, a]}) checks that the order in which a
	 * caller names them does not matter; a lock that deadlocks makes the check time out.
	 * @param keySets the key sets to contend on, each with at least one key
	 * @param locker the lock under test
	 * @return the result, whose overlaps and violations are counted per key
	 * @throws IllegalStateException if the threads do not finish within the timeout
	 */
	public Result checkSets(List<List<String>> keySets, MultiKeyLocker locker) {
		Assert.notEmpty(keySets, "'keySets' must not be empty");
		for (List<String> set : keySets) {
			Assert.notEmpty(set, "'keySets' must not contain an empty set");
			Assert.noNullElements(set, "'keySets' must not contain null keys");
		}
		Assert.notNull(locker, "'locker' must not be null");
		return run(keySets, locker);
	}

	private Result run(List<List<String>> keySets, MultiKeyLocker locker) {
		Map<String, KeyState> byKey = new LinkedHashMap<>();
		List<List<KeyState>> sets = new ArrayList<>(keySets.size());
		for (List<String> set : keySets) {
			sets.add(set.stream().distinct().map((key) -> byKey.computeIfAbsent(key, KeyState::new)).toList());
		}
		AtomicLong attempts = new AtomicLong();
		AtomicLong acquisitions = new AtomicLong();
		AtomicLong violations = new AtomicLong();
		ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
		CountDownLatch ready = new CountDownLatch(this.threads);
		CountDownLatch go = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(this.threads);
		long holdNanos = this.holdTime.toNanos();
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < this.threads; t++) {
			Thread worker = new Thread(() -> {
				try {
					ready.countDown();
					go.await();
					ThreadLocalRandom random = ThreadLocalRandom.current();
					for (int i = 0; i < this.attemptsPerThread && !Thread.currentThread().isInterrupted(); i++) {
						int chosen = random.nextInt(sets.size());
						List<KeyState> states = sets.get(chosen);
						attempts.incrementAndGet();
						Handle handle = locker.tryAcquire(keySets.get(chosen));
						if (handle == null) {
							Thread.yield();
							continue;
						}
						long start = System.nanoTime();
						acquisitions.incrementAndGet();
						for (KeyState state : states) {
							if (state.holders.getAndIncrement() != 0) {
								violations.incrementAndGet();
							}
						}
						spin(holdNanos);
						for (KeyState state : states) {
							state.holders.decrementAndGet();
						}
						long end = System.nanoTime();
						for (KeyState state : states) {
							state.intervals.add(new long[] { start, end });
						}
						handle.release();
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				catch (Throwable ex) {
					failures.add(ex);
				}
				finally {
					done.countDown();
				}
			}, "exclusion-checker-" + t);
			worker.setDaemon(true);
			workers.add(worker);
			worker.start();
		}
		long started = System.nanoTime();
		try {
			ready.await();
			go.countDown();
			if (!done.await(this.timeout.toNanos(), TimeUnit.NANOSECONDS)) {
				workers.forEach(Thread::interrupt);
				throw new IllegalStateException("Exclusion check did not finish within " + this.timeout + " ("
						+ attempts.get() + " attempts made)");
			}
		}
		catch (InterruptedException ex) {
			workers.forEach(Thread::interrupt);
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during the exclusion check", ex);
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		long overlaps = byKey.values().stream().mapToLong(KeyState::countOverlaps).sum();
		return new Result(attempts.get(), acquisitions.get(), violations.get(), overlaps, List.copyOf(failures),
				elapsed);
	}

	private static void spin(long nanos) {
		long end = System.nanoTime() + nanos;
		while (System.nanoTime() - end < 0) {
			Thread.onSpinWait();
		}
	}

	/**
	 * The lock under test.
	 */
	@FunctionalInterface
	public interface Locker {

		/**
		 * Try once, without waiting, to acquire the lock on a key.
		 * @param key the key
		 * @return a handle that releases the lock, or {@code null} if the key is held
		 * @throws Exception on failure; it is recorded in {@link Result#failures()}
		 */
		@Nullable Handle tryAcquire(String key) throws Exception;

	}

	/**
	 * A lock under test that takes several keys at once, all or none.
	 */
	@FunctionalInterface
	public interface MultiKeyLocker {

		/**
		 * Try once, without waiting (or waiting a bounded time), to acquire the locks on
		 * all the keys.
		 * @param keys the keys, in the order the caller names them
		 * @return a handle that releases every lock, or {@code null} if a key is held
		 * @throws Exception on failure; it is recorded in {@link Result#failures()}
		 */
		@Nullable Handle tryAcquire(List<String> keys) throws Exception;

	}

	/**
	 * A held lock.
	 */
	@FunctionalInterface
	public interface Handle {

		/**
		 * Release the lock.
		 * @throws Exception on failure; it is recorded in {@link Result#failures()}
		 */
		void release() throws Exception;

	}

	/**
	 * What an exclusion check observed.
	 *
	 * @param attempts the number of acquisition attempts
	 * @param acquisitions the number of successful acquisitions
	 * @param violations the number of acquisitions that found another holder still
	 * counted
	 * @param overlaps the number of hold intervals that overlapped an earlier one on the
	 * same key
	 * @param failures the exceptions thrown by the lock; each ended its thread
	 * @param elapsed how long the check took
	 */
	public record Result(long attempts, long acquisitions, long violations, long overlaps, List<Throwable> failures,
			Duration elapsed) {

		/**
		 * Return the number of attempts that found the key taken.
		 * @return the number of rejections
		 */
		public long rejections() {
			return this.attempts - this.acquisitions;
		}

		/**
		 * Return whether no two owners ever held the same key and the lock never failed.
		 * @return {@code true} if the lock excluded
		 */
		public boolean isExclusive() {
			return this.violations == 0 && this.overlaps == 0 && this.failures.isEmpty();
		}

		@Override
		public String toString() {
			return "ExclusionChecker.Result[" + this.attempts + " attempts, " + this.acquisitions + " acquisitions, "
					+ rejections() + " rejections, " + this.violations + " violations, " + this.overlaps + " overlaps, "
					+ this.failures.size() + " failures"
					+ (this.failures.isEmpty() ? "" : " (first: " + this.failures.get(0) + ")") + ", in "
					+ this.elapsed.toMillis() + " ms]";
		}

	}

	/**
	 * The holders and hold intervals of one key.
	 */
	private static final class KeyState {

		final String key;

		final AtomicInteger holders = new AtomicInteger();

		final List<long[]> intervals = Collections.synchronizedList(new ArrayList<>());

		KeyState(String key) {
			this.key = key;
		}

		long countOverlaps() {
			List<long[]> sorted = new ArrayList<>(this.intervals);
			sorted.sort(Comparator.comparingLong((interval) -> interval[0]));
			long overlaps = 0;
			long latestEnd = Long.MIN_VALUE;
			boolean first = true;
			for (long[] interval : sorted) {
				if (!first && interval[0] - latestEnd < 0) {
					overlaps++;
				}
				latestEnd = first ? interval[1] : Math.max(latestEnd, interval[1]);
				first = false;
			}
			return overlaps;
		}

	}

}
