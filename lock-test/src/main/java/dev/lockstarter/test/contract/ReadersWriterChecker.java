package dev.lockstarter.test.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.util.Assert;

/**
 * Checks that a read/write lock excludes: every reader calls {@link #enterRead} once it
 * holds the key and {@link #exitRead} before it releases it, every writer
 * {@link #enterWrite} and {@link #exitWrite}, from any thread and any lock instance in
 * this JVM. A writer inside a key with anyone else, reader or writer, is a
 * {@linkplain Result#violations() violation}. The checker also reports the most readers
 * it saw inside a key at once, so that a test can show that readers did share the key,
 * and how many writes it saw.
 *
 * <pre class="code">
 * ReadersWriterChecker checker = new ReadersWriterChecker();
 * locks.execute("doc", readOptions, (lease) -&gt; checker.reading("doc", work));
 * locks.execute("doc", writeOptions, (lease) -&gt; checker.writing("doc", work));
 * ReadersWriterChecker.Result result = checker.result();
 * assertThat(result.violations()).as(result.toString()).isZero();
 * </pre>
 *
 * @since 0.1.0
 */
public final class ReadersWriterChecker {

	private static final int MAX_REPORTED = 10;

	private final Map<String, KeyState> keys = new ConcurrentHashMap<>();

	private final List<String> reported = new ArrayList<>();

	private long reads;

	private long writes;

	private long violations;

	private int maxReaders;

	/**
	 * Record that the calling reader is inside {@code key}.
	 * @param key the key
	 */
	public void enterRead(String key) {
		KeyState state = state(key);
		synchronized (this) {
			state.readers++;
			this.reads++;
			this.maxReaders = Math.max(this.maxReaders, state.readers);
			if (state.writers > 0) {
				violation("a reader entered " + key + " while a writer was inside");
			}
		}
	}

	/**
	 * Record that the calling reader leaves {@code key}, before it releases the lock.
	 * @param key the key, entered for reading before
	 * @throws IllegalStateException if no reader is inside the key
	 */
	public void exitRead(String key) {
		KeyState state = state(key);
		synchronized (this) {
			Assert.state(state.readers > 0, () -> "No reader inside " + key + " to exit");
			state.readers--;
		}
	}

	/**
	 * Record that the calling writer is inside {@code key}.
	 * @param key the key
	 */
	public void enterWrite(String key) {
		KeyState state = state(key);
		synchronized (this) {
			state.writers++;
			this.writes++;
			if (state.writers > 1 || state.readers > 0) {
				violation("a writer entered " + key + " with " + (state.writers - 1) + " writers and " + state.readers
						+ " readers inside");
			}
		}
	}

	/**
	 * Record that the calling writer leaves {@code key}, before it releases the lock.
	 * @param key the key, entered for writing before
	 * @throws IllegalStateException if no writer is inside the key
	 */
	public void exitWrite(String key) {
		KeyState state = state(key);
		synchronized (this) {
			Assert.state(state.writers > 0, () -> "No writer inside " + key + " to exit");
			state.writers--;
		}
	}

	/**
	 * Enter {@code key} as a reader, run {@code work}, and exit, even if the work fails.
	 * @param key the key
	 * @param work what the reader does inside
	 */
	public void reading(String key, Runnable work) {
		Assert.notNull(work, "'work' must not be null");
		enterRead(key);
		try {
			work.run();
		}
		finally {
			exitRead(key);
		}
	}

	/**
	 * Enter {@code key} as the writer, run {@code work}, and exit, even if the work
	 * fails.
	 * @param key the key
	 * @param work what the writer does inside
	 */
	public void writing(String key, Runnable work) {
		Assert.notNull(work, "'work' must not be null");
		enterWrite(key);
		try {
			work.run();
		}
		finally {
			exitWrite(key);
		}
	}

	/**
	 * Return what the checker has observed so far.
	 * @return the result
	 */
	public synchronized Result result() {
		return new Result(this.reads, this.writes, this.maxReaders, this.violations, List.copyOf(this.reported));
	}

	private KeyState state(String key) {
		Assert.notNull(key, "'key' must not be null");
		return this.keys.computeIfAbsent(key, (k) -> new KeyState());
	}

	private void violation(String description) {
		this.violations++;
		if (this.reported.size() < MAX_REPORTED) {
			this.reported.add(description + " (on " + Thread.currentThread().getName() + ")");
		}
	}

	/**
	 * What a readers-and-writer check observed.
	 *
	 * @param reads how many times a reader entered a key
	 * @param writes how many times a writer entered a key
	 * @param maxReaders the most readers seen inside one key at once
	 * @param violations the entries that put a writer beside another holder
	 * @param firstViolations a description of the first violations, at most ten
	 */
	public record Result(long reads, long writes, int maxReaders, long violations, List<String> firstViolations) {

		/**
		 * Return whether no writer was ever inside a key with another holder.
		 * @return {@code true} if the lock excluded
		 */
		public boolean isExclusive() {
			return this.violations == 0;
		}

		@Override
		public String toString() {
			return "ReadersWriterChecker.Result[" + this.reads + " reads, " + this.writes + " writes, at most "
					+ this.maxReaders + " readers at once, " + this.violations + " violations"
					+ (this.firstViolations.isEmpty() ? "" : " (first: " + this.firstViolations.get(0) + ")") + "]";
		}

	}

	/** Who is inside one key; read and changed only under the checker's monitor. */
	private static final class KeyState {

		int readers;

		int writers;

	}

}
