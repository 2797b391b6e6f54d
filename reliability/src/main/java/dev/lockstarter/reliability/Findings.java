package dev.lockstarter.reliability;

import java.util.ArrayList;
import java.util.List;

/**
 * What the {@link Checker} and the harness found in one scenario.
 */
final class Findings {

	long entered;

	long completed;

	long killedInside;

	long exitedNotHeld;

	/** Sections whose lock told of its loss before their exit or their worker's death. */
	long lossesTold;

	/**
	 * Of {@link #lossesTold}, those told while the lock's promise still ran: the store
	 * refused a holder that kept its side of the promise.
	 */
	long lossesWithinPromise;

	/**
	 * Sections that exited at least {@link Worker#LONG_SECTION_MIN_TTLS} times the
	 * time-to-live after they entered: those whose lock was renewed.
	 */
	long longSections;

	long occupancyViolations;

	/** Overlaps by {@link Checker.Cause} ordinal. */
	final long[] overlaps = new long[Checker.Cause.values().length];

	/** Clobbered counter writes by {@link Checker.Cause} ordinal. */
	final long[] clobbers = new long[Checker.Cause.values().length];

	final List<String> realExamples = new ArrayList<>();

	long counterWrites;

	long lostUpdates;

	long fencedWrites;

	long staleRejected;

	/**
	 * Writes the fenced register accepted, less the fenced counter's final values:
	 * updates lost although every write carried its lock's fencing token (with a lock
	 * that issues none, every write is accepted, and this counts as the plain counter's).
	 */
	long fencedLostUpdates;

	/** Whether any section's lock carried a fencing token other than 0. */
	boolean tokensSeen;

	long pauses;

	long kills;

	long restarts;

	long crashes;

	/**
	 * Offsets of a worker's wall clock set by the {@link ClockNemesis}, its first among
	 * them.
	 */
	long clockSteps;

	/** The largest offset of a worker's wall clock from the true time. */
	long largestClockOffsetMillis;

	final List<Long> killBlocks = new ArrayList<>();

	long locksWithoutExpirySeen;

	final List<String> livenessViolations = new ArrayList<>();

	long durationMillis;

	long overlaps(Checker.Cause cause) {
		return this.overlaps[cause.ordinal()];
	}

	long totalOverlaps() {
		long total = 0;
		for (long count : this.overlaps) {
			total += count;
		}
		return total;
	}

	long clobbers(Checker.Cause cause) {
		return this.clobbers[cause.ordinal()];
	}

	long maxKillBlock() {
		return this.killBlocks.stream().mapToLong(Long::longValue).max().orElse(-1);
	}

	/** Whether a broken lock was caught: a real overlap or a liveness violation. */
	boolean caughtBroken() {
		return overlaps(Checker.Cause.REAL) > 0 || clobbers(Checker.Cause.REAL) > 0
				|| !this.livenessViolations.isEmpty();
	}

	@Override
	public String toString() {
		return "Findings[" + this.entered + " entered, " + this.completed + " completed, " + this.killedInside
				+ " killed inside, " + this.exitedNotHeld + " exited not held, " + this.lossesTold + " losses told ("
				+ this.lossesWithinPromise + " within the promise), " + this.longSections
				+ " long sections, overlaps real/store lost/lost/pause " + overlaps(Checker.Cause.REAL) + "/"
				+ overlaps(Checker.Cause.STORE_LOST) + "/" + overlaps(Checker.Cause.LOST) + "/"
				+ overlaps(Checker.Cause.PAUSE) + ", occupancy violations " + this.occupancyViolations
				+ ", lost updates " + this.lostUpdates + " (clobbers real/store lost/lost/pause "
				+ clobbers(Checker.Cause.REAL) + "/" + clobbers(Checker.Cause.STORE_LOST) + "/"
				+ clobbers(Checker.Cause.LOST) + "/" + clobbers(Checker.Cause.PAUSE) + "), stale rejected "
				+ this.staleRejected + ", fenced lost updates " + this.fencedLostUpdates + ", pauses " + this.pauses
				+ ", kills " + this.kills + ", restarts " + this.restarts + ", crashes " + this.crashes
				+ ", clock steps " + this.clockSteps + " (up to ±" + this.largestClockOffsetMillis + " ms)"
				+ ", no-expiry seen " + this.locksWithoutExpirySeen + ", liveness " + this.livenessViolations
				+ (this.realExamples.isEmpty() ? "" : ", e.g. " + this.realExamples) + "]";
	}

}
