package dev.lockstarter.test.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.util.Assert;

/**
 * Checks that a lock with permits never has more holders of a key than its permits: every
 * holder calls {@link #enter} once it holds the key and {@link #exit} before it releases
 * it, from any thread and any lock instance in this JVM, and the checker counts who is
 * inside each key. An entry that finds the key already full is a
 * {@linkplain Result#violations() violation}; the checker also reports the most holders
 * it saw inside a key at once, so that a test can show the limit was reached and its
 * check was not passed trivially.
 *
 * <pre class="code">
 * PermitsChecker checker = new PermitsChecker(3);
 * // in each of many threads, on several LockTemplate instances sharing one store:
 * locks.execute("export", options, (lease) -&gt; checker.inside("export", work));
 * PermitsChecker.Result result = checker.result();
 * assertThat(result.violations()).as(result.toString()).isZero();
 * assertThat(result.maxInside()).isEqualTo(3);
 * </pre>
 *
 * @since 0.1.0
 */
public final class PermitsChecker {

	private static final int MAX_REPORTED = 10;

	private final int permits;

	private final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();

	private final AtomicInteger maxInside = new AtomicInteger();

	private final AtomicLong entries = new AtomicLong();

	private final AtomicLong violations = new AtomicLong();

	private final List<String> reported = new ArrayList<>();

	/**
	 * Create a checker for a lock with the given permits.
	 * @param permits how many holders of a key the lock allows at once, positive
	 */
	public PermitsChecker(int permits) {
		Assert.isTrue(permits > 0, () -> "'permits' must be positive, was " + permits);
		this.permits = permits;
	}

	/**
	 * Record that the calling holder is inside {@code key}: it holds the lock.
	 * @param key the key
	 */
	public void enter(String key) {
		Assert.notNull(key, "'key' must not be null");
		int now = this.inside.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
		this.entries.incrementAndGet();
		this.maxInside.accumulateAndGet(now, Math::max);
		if (now > this.permits) {
			this.violations.incrementAndGet();
			report(now + " holders inside " + key + " (at most " + this.permits + " allowed), one entering on "
					+ Thread.currentThread().getName());
		}
	}

	/**
	 * Record that the calling holder leaves {@code key}, before it releases the lock.
	 * @param key the key, entered before
	 * @throws IllegalStateException if no holder is inside the key
	 */
	public void exit(String key) {
		Assert.notNull(key, "'key' must not be null");
		AtomicInteger count = this.inside.get(key);
		int before = (count != null) ? count.getAndUpdate((n) -> (n > 0) ? n - 1 : n) : 0;
		if (before <= 0) {
			throw new IllegalStateException("No holder inside " + key + " to exit");
		}
	}

	/**
	 * Enter {@code key}, run {@code work}, and exit, even if the work fails.
	 * @param key the key
	 * @param work what the holder does inside
	 */
	public void inside(String key, Runnable work) {
		Assert.notNull(work, "'work' must not be null");
		enter(key);
		try {
			work.run();
		}
		finally {
			exit(key);
		}
	}

	/**
	 * Return what the checker has observed so far.
	 * @return the result
	 */
	public Result result() {
		synchronized (this.reported) {
			return new Result(this.permits, this.entries.get(), this.maxInside.get(), this.violations.get(),
					List.copyOf(this.reported));
		}
	}

	private void report(String violation) {
		synchronized (this.reported) {
			if (this.reported.size() < MAX_REPORTED) {
				this.reported.add(violation);
			}
		}
	}

	/**
	 * What a permits check observed.
	 *
	 * @param permits the permits of the lock
	 * @param entries how many times a holder entered a key
	 * @param maxInside the most holders seen inside one key at once
	 * @param violations the entries that found the key already full
	 * @param firstViolations a description of the first violations, at most ten
	 */
	public record Result(int permits, long entries, int maxInside, long violations, List<String> firstViolations) {

		/**
		 * Return whether no key ever had more holders than the permits.
		 * @return {@code true} if the limit held
		 */
		public boolean isWithinPermits() {
			return this.violations == 0;
		}

		@Override
		public String toString() {
			return "PermitsChecker.Result[" + this.permits + " permits, " + this.entries + " entries, at most "
					+ this.maxInside + " inside, " + this.violations + " violations"
					+ (this.firstViolations.isEmpty() ? "" : " (first: " + this.firstViolations.get(0) + ")") + "]";
		}

	}

}
