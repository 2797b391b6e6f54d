package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Checks that a lock protects a read-modify-write: several threads, spread over several
 * instances of the lock (as several application instances would hold them), each run a
 * number of critical sections on a few keys. A critical section reads the key's counter,
 * which lives outside the lock, sleeps, and writes the value read plus one. The checker
 * detects a lock that does not exclude in two independent ways:
 * <ul>
 * <li>{@linkplain Result#lostUpdates() lost updates}: the counters' final sum is less
 * than the number of critical sections that completed, because two sections read the same
 * value;</li>
 * <li>{@linkplain Result#overlaps() overlaps}: a section began while another one on the
 * same key had not ended.</li>
 * </ul>
 * Each thread goes on until it has completed its sections; an attempt that does not get
 * the lock is retried after a millisecond.
 *
 * <pre class="code">
 * LostUpdateChecker.Result result = new LostUpdateChecker().threads(8).sectionsPerThread(25)
 *     .check(List.of("a", "b"), List.of(lockerOn(first), lockerOn(second)));
 * assertThat(result.isConsistent()).as(result.toString()).isTrue();
 * </pre>
 *
 * A lock with a time-to-live must be given one far longer than a section, or an expiry
 * during a long pause of a holder is reported.
 *
 * @since 0.1.0
 */
public final class LostUpdateChecker {

	private int threads = 8;

	private int sectionsPerThread = 25;

	private Duration sectionTime = Duration.ofMillis(1);

	private Duration timeout = Duration.ofSeconds(60);

	/**
	 * Set the number of threads; 8 by default. Thread {@code i} uses instance
	 * {@code i % instances}.
	 * @param threads the number of threads, at least 2
	 * @return this checker
	 */
	public LostUpdateChecker threads(int threads) {
		Assert.isTrue(threads >= 2, () -> "'threads' must be at least 2, was " + threads);
		this.threads = threads;
		return this;
	}

	/**
	 * Set the number of critical sections each thread completes; 25 by default. Each
	 * picks one of the keys at random.
	 * @param sectionsPerThread the number of sections, positive
	 * @return this checker
	 */
	public LostUpdateChecker sectionsPerThread(int sectionsPerThread) {
		Assert.isTrue(sectionsPerThread > 0, () -> "'sectionsPerThread' must be positive, was " + sectionsPerThread);
		this.sectionsPerThread = sectionsPerThread;
		return this;
	}

	/**
	 * Set how long a critical section sleeps between reading and writing its counter; 1
	 * ms by default.
	 * @param sectionTime the time, not negative
	 * @return this checker
	 */
	public LostUpdateChecker sectionTime(Duration sectionTime) {
		Assert.notNull(sectionTime, "'sectionTime' must not be null");
		Assert.isTrue(!sectionTime.isNegative(), () -> "'sectionTime' must not be negative, was " + sectionTime);
		this.sectionTime = sectionTime;
		return this;
	}

	/**
	 * Set how long the whole check may take before it fails; 60 seconds by default.
	 * @param timeout the timeout, positive
	 * @return this checker
	 */
	public LostUpdateChecker timeout(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isNegative() && !timeout.isZero(), () -> "'timeout' must be positive, was " + timeout);
		this.timeout = timeout;
		return this;
	}

	/**
	 * Run the threads against the instances of the lock and report what happened.
	 * @param keys the keys, each with a counter; fewer keys than threads make contention
	 * likely
	 * @param instances the instances of the lock under test, at least one
	 * @return the result
	 * @throws IllegalStateException if the threads do not finish within the timeout
	 */
	public Result check(List<String> keys, List<? extends Locker> instances) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		Assert.noNullElements(keys, "'keys' must not contain null elements");
		Assert.notEmpty(instances, "'instances' must not be empty");
		Assert.noNullElements(instances, "'instances' must not contain null elements");
		List<String> distinctKeys = keys.stream().distinct().toList();
		List<Counter> counters = distinctKeys.stream().map((key) -> new Counter()).toList();
		AtomicLong attempts = new AtomicLong();
		AtomicLong sections = new AtomicLong();
		AtomicLong overlaps = new AtomicLong();
		ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
		CountDownLatch ready = new CountDownLatch(this.threads);
		CountDownLatch go = new CountDownLatch(1);
		CountDownLatch done = new CountDownLatch(this.threads);
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < this.threads; t++) {
			Locker locker = instances.get(t % instances.size());
			Thread worker = new Thread(() -> {
				try {
					ready.countDown();
					go.await();
					ThreadLocalRandom random = ThreadLocalRandom.current();
					int completed = 0;
					while (completed < this.sectionsPerThread) {
						int chosen = random.nextInt(distinctKeys.size());
						Counter counter = counters.get(chosen);
						attempts.incrementAndGet();
						Handle handle = locker.enter(distinctKeys.get(chosen));
						if (handle == null) {
							Thread.sleep(1);
							continue;
						}
						if (counter.inside.getAndIncrement() != 0) {
							overlaps.incrementAndGet();
						}
						int read = counter.value.get();
						sleep(this.sectionTime);
						counter.value.set(read + 1);
						counter.inside.decrementAndGet();
						sections.incrementAndGet();
						completed++;
						handle.exit();
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
			}, "lost-update-checker-" + t);
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
				throw new IllegalStateException("Lost-update check did not finish within " + this.timeout + " ("
						+ sections.get() + " critical sections completed)");
			}
		}
		catch (InterruptedException ex) {
			workers.forEach(Thread::interrupt);
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted during the lost-update check", ex);
		}
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		long total = counters.stream().mapToLong((counter) -> counter.value.get()).sum();
		return new Result(attempts.get(), sections.get(), total, overlaps.get(), List.copyOf(failures), elapsed);
	}

	private static void sleep(Duration time) throws InterruptedException {
		if (!time.isZero()) {
			Thread.sleep(time.toMillis(), (int) (time.toNanos() % 1_000_000));
		}
	}

	/**
	 * One instance of the lock under test.
	 */
	@FunctionalInterface
	public interface Locker {

		/**
		 * Acquire the lock on a key, waiting as the lock does.
		 * @param key the key
		 * @return a handle that releases the lock, or {@code null} if it was not acquired
		 * @throws Exception on failure; it is recorded in {@link Result#failures()} and
		 * ends the thread
		 */
		@Nullable Handle enter(String key) throws Exception;

	}

	/**
	 * A held lock.
	 */
	@FunctionalInterface
	public interface Handle {

		/**
		 * Release the lock.
		 * @throws Exception on failure; it is recorded in {@link Result#failures()} and
		 * ends the thread
		 */
		void exit() throws Exception;

	}

	/**
	 * What a lost-update check observed.
	 *
	 * @param attempts the number of acquisition attempts
	 * @param sections the number of critical sections that completed
	 * @param total the sum of the counters at the end, which equals {@code sections} when
	 * no update was lost
	 * @param overlaps the number of critical sections that began while another one on the
	 * same key had not ended
	 * @param failures the exceptions thrown by the lock; each ended its thread
	 * @param elapsed how long the check took
	 */
	public record Result(long attempts, long sections, long total, long overlaps, List<Throwable> failures,
			Duration elapsed) {

		/**
		 * Return the number of increments lost: critical sections whose write was
		 * overwritten by another one that had read the same value.
		 * @return the number of lost updates
		 */
		public long lostUpdates() {
			return this.sections - this.total;
		}

		/**
		 * Return whether no update was lost, no critical sections overlapped and the lock
		 * never failed.
		 * @return {@code true} if the lock protected every section
		 */
		public boolean isConsistent() {
			return lostUpdates() == 0 && this.overlaps == 0 && this.failures.isEmpty();
		}

		@Override
		public String toString() {
			return "LostUpdateChecker.Result[" + this.attempts + " attempts, " + this.sections + " sections, "
					+ this.total + " counted, " + lostUpdates() + " lost updates, " + this.overlaps + " overlaps, "
					+ this.failures.size() + " failures"
					+ (this.failures.isEmpty() ? "" : " (first: " + this.failures.get(0) + ")") + ", in "
					+ this.elapsed.toMillis() + " ms]";
		}

	}

	/**
	 * The counter of one key and the number of critical sections inside it.
	 */
	private static final class Counter {

		final AtomicInteger value = new AtomicInteger();

		final AtomicInteger inside = new AtomicInteger();

	}

}
