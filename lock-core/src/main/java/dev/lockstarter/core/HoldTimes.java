package dev.lockstarter.core;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * How long the locks of each name are typically held, learned from this instance's own
 * releases: an exponentially weighted moving average, each new hold weighing one eighth,
 * so that a change in the work shows within a few dozen holds and one slow run does not
 * dominate. Names are low-cardinality; past {@value #MAX_NAMES} names, new ones are not
 * tracked.
 */
final class HoldTimes {

	static final int MAX_NAMES = 1024;

	private final Map<String, AtomicLong> averages = new ConcurrentHashMap<>();

	void record(String name, Duration held) {
		long nanos = Math.max(1, held.toNanos());
		AtomicLong average = this.averages.get(name);
		if (average == null) {
			if (this.averages.size() >= MAX_NAMES) {
				return;
			}
			average = this.averages.computeIfAbsent(name, (n) -> new AtomicLong());
		}
		average.accumulateAndGet(nanos,
				(current, sample) -> (current == 0) ? sample : current + (sample - current) / 8);
	}

	/**
	 * Return the typical hold time of a name, if any was observed.
	 * @param name the lock name
	 * @return the average, or {@code null}
	 */
	@Nullable Duration typical(String name) {
		AtomicLong average = this.averages.get(name);
		long nanos = (average != null) ? average.get() : 0;
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

}
