package dev.lockstarter.core;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * How long the locks of each name are typically held, learned from this instance's own
 * releases: an exponentially weighted moving average, each new sample weighing one
 * eighth, so that a change in the work shows within a few dozen samples and one slow run
 * does not dominate. The first {@value #ALWAYS_SAMPLED} holds of a name are all sampled;
 * after them, one hold in {@value #SAMPLE_ONE_IN} at random, which spares the other
 * releases a clock read and an update and follows a change within a few hundred holds.
 * Names are low-cardinality; past {@value #MAX_NAMES} names, new ones are not tracked.
 */
final class HoldTimes {

	static final int MAX_NAMES = 1024;

	static final int ALWAYS_SAMPLED = 64;

	static final int SAMPLE_ONE_IN = 8;

	private final Map<String, Average> averages = new ConcurrentHashMap<>();

	/**
	 * A lock of a name was released: sample how long it was held, if this hold is
	 * sampled.
	 * @param name the lock name
	 * @param acquiredAt when it was acquired, from {@link System#nanoTime()}
	 */
	void released(String name, long acquiredAt) {
		Average average = this.averages.get(name);
		if (average == null) {
			if (this.averages.size() >= MAX_NAMES) {
				return;
			}
			average = this.averages.computeIfAbsent(name, (n) -> new Average());
		}
		if (average.samples >= ALWAYS_SAMPLED && ThreadLocalRandom.current().nextInt(SAMPLE_ONE_IN) != 0) {
			return;
		}
		average.add(Math.max(1, System.nanoTime() - acquiredAt));
	}

	/**
	 * Return the typical hold time of a name, if any was observed.
	 * @param name the lock name
	 * @return the average, or {@code null}
	 */
	@Nullable Duration typical(String name) {
		Average average = this.averages.get(name);
		long nanos = (average != null) ? average.nanos.get() : 0;
		return (nanos > 0) ? Duration.ofNanos(nanos) : null;
	}

	/**
	 * Estimate when a caller that found a lock held can retry: the typical hold time of
	 * its name, at most the holder's remaining time-to-live, which it is when no hold was
	 * observed.
	 */
	Duration retryAfter(String name, Duration holderRemainingTtl) {
		Duration typical = typical(name);
		return (typical != null && typical.compareTo(holderRemainingTtl) < 0) ? typical : holderRemainingTtl;
	}

	/**
	 * Return how many holds of a name were sampled; for tests.
	 * @param name the lock name
	 * @return the count
	 */
	int samples(String name) {
		Average average = this.averages.get(name);
		return (average != null) ? average.samples : 0;
	}

	/** The average hold time of one name, and how many holds it has sampled. */
	private static final class Average {

		private final AtomicLong nanos = new AtomicLong();

		/** Counted without synchronization: it only decides when sampling starts. */
		private int samples;

		void add(long held) {
			this.nanos.accumulateAndGet(held,
					(current, sample) -> (current == 0) ? sample : current + (sample - current) / 8);
			this.samples++;
		}

	}

}
