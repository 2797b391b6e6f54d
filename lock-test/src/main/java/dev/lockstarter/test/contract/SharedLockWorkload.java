package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import org.springframework.util.Assert;

/**
 * Drives threads that take a shared lock through several {@link LockTemplate} instances
 * on one store, as several application instances take it: thread {@code t} uses instance
 * {@code t % instances}, all threads start together and each takes the lock a number of
 * rounds, waiting as its options say and staying inside for a short hold. The holders are
 * counted by a {@link PermitsChecker} or a {@link ReadersWriterChecker}.
 *
 * <pre class="code">
 * SharedLockWorkload workload = new SharedLockWorkload(List.of(locks, otherLocks), 12, 15, Duration.ofMillis(3));
 * PermitsChecker.Result result = workload.permits("export", options, 3);
 * assertThat(result.violations()).as(result.toString()).isZero();
 * assertThat(result.maxInside()).isEqualTo(3);
 * </pre>
 *
 * @since 0.1.0
 */
public final class SharedLockWorkload {

	private static final long TIMEOUT_SECONDS = 120;

	private final List<LockTemplate> instances;

	private final int threads;

	private final int rounds;

	private final Duration hold;

	/**
	 * Create a workload.
	 * @param instances the lock instances the threads are spread over, not empty
	 * @param threads how many threads take the lock, positive
	 * @param rounds how many times each thread takes it, positive
	 * @param hold how long a holder stays inside
	 */
	public SharedLockWorkload(List<LockTemplate> instances, int threads, int rounds, Duration hold) {
		Assert.notEmpty(instances, "'instances' must not be empty");
		Assert.isTrue(threads > 0, () -> "'threads' must be positive, was " + threads);
		Assert.isTrue(rounds > 0, () -> "'rounds' must be positive, was " + rounds);
		Assert.notNull(hold, "'hold' must not be null");
		this.instances = List.copyOf(instances);
		this.threads = threads;
		this.rounds = rounds;
		this.hold = hold;
	}

	/**
	 * Return how many times the threads take the lock in all.
	 * @return threads times rounds
	 */
	public int entries() {
		return this.threads * this.rounds;
	}

	/**
	 * Take {@code key} with {@code options} (a permits kind) on every thread and round,
	 * counting the holders inside with a {@link PermitsChecker} of {@code permits}.
	 * @param key the key
	 * @param options the options, whose kind and wait time the threads use
	 * @param permits how many holders the checker allows inside at once
	 * @return what the checker observed
	 * @throws Exception if a thread failed or did not finish in time
	 */
	public PermitsChecker.Result permits(String key, LockOptions options, int permits) throws Exception {
		return permits(key, options, permits, (lease) -> {
		});
	}

	/**
	 * Take {@code key} with {@code options} (a permits kind) on every thread and round,
	 * counting the holders inside with a {@link PermitsChecker} of {@code permits}, and
	 * hand every lease granted to {@code granted}, inside, for example to collect its
	 * fencing token.
	 * @param key the key
	 * @param options the options, whose kind and wait time the threads use
	 * @param permits how many holders the checker allows inside at once
	 * @param granted what a holder does with its lease once inside, on its own thread
	 * @return what the checker observed
	 * @throws Exception if a thread failed or did not finish in time
	 */
	public PermitsChecker.Result permits(String key, LockOptions options, int permits, Consumer<Lease> granted)
			throws Exception {
		Assert.notNull(granted, "'granted' must not be null");
		PermitsChecker checker = new PermitsChecker(permits);
		run((locks, thread) -> {
			try (Lease lease = locks.acquire(key, options)) {
				granted.accept(lease);
				checker.inside(key, this::hold);
			}
		});
		return checker.result();
	}

	/**
	 * Take {@code key} for reading or writing on every thread and round, counting the
	 * holders inside with a {@link ReadersWriterChecker}: the threads that {@code writer}
	 * selects are writers and take {@code write}, the others readers and take
	 * {@code read}.
	 * @param key the key
	 * @param read the options of the readers
	 * @param write the options of the writers
	 * @param writer which thread indexes are writers
	 * @return what the checker observed
	 * @throws Exception if a thread failed or did not finish in time
	 */
	public ReadersWriterChecker.Result readersAndWriter(String key, LockOptions read, LockOptions write,
			IntPredicate writer) throws Exception {
		ReadersWriterChecker checker = new ReadersWriterChecker();
		run((locks, thread) -> {
			if (writer.test(thread)) {
				holding(locks, key, write, () -> checker.writing(key, this::hold));
			}
			else {
				holding(locks, key, read, () -> checker.reading(key, this::hold));
			}
		});
		return checker.result();
	}

	/**
	 * Start the threads together and run {@code round} the number of rounds on each, then
	 * wait for all of them.
	 * @param round what a thread does in one round
	 * @throws Exception if a thread failed or did not finish in time
	 */
	public void run(Round round) throws Exception {
		Assert.notNull(round, "'round' must not be null");
		ExecutorService executor = Executors.newFixedThreadPool(this.threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<?>> runs = new ArrayList<>();
			for (int t = 0; t < this.threads; t++) {
				LockTemplate locks = this.instances.get(t % this.instances.size());
				int thread = t;
				runs.add(executor.submit(() -> {
					start.await();
					for (int i = 0; i < this.rounds; i++) {
						round.take(locks, thread);
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> run : runs) {
				run.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	/**
	 * Stay inside for the hold of this workload.
	 * @throws IllegalStateException if interrupted
	 */
	public void hold() {
		try {
			Thread.sleep(this.hold.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while holding a lock", ex);
		}
	}

	/**
	 * Take the lock, waiting as the options say, run {@code work} inside and release.
	 * @param locks the lock instance
	 * @param key the key
	 * @param options the options
	 * @param work what the holder does inside
	 */
	public static void holding(LockTemplate locks, String key, LockOptions options, Runnable work) {
		try (Lease lease = locks.acquire(key, options)) {
			work.run();
		}
	}

	/** What one thread does in one round. */
	@FunctionalInterface
	public interface Round {

		/**
		 * Take the lock once.
		 * @param locks the instance this thread uses
		 * @param thread the index of this thread, from zero
		 * @throws Exception if the round failed
		 */
		void take(LockTemplate locks, int thread) throws Exception;

	}

}
