package dev.lockstarter.reliability;

import java.time.Duration;

/**
 * One run of the workload: a lock (this starter's, or a broken one), the nemeses that run
 * during it, and how long it lasts.
 *
 * @param name short name, used in the report and the worker log file names
 * @param store {@link Worker#OURS}, {@link Worker#OURS_DETACHED},
 * {@link Worker#OWNER_BLIND} or a {@link BrokenLockStore.Flaw} name
 * @param backend the store the lock runs on; {@link Backend#REDIS} for a
 * {@link BrokenLockStore}
 * @param description what the scenario shows, for the report
 * @param duration how long the workload runs at most
 * @param stopWhenCaught whether to end as soon as the checker finds the lock broken
 * @param pauses whether to {@code SIGSTOP} a lock-holding worker past the time-to-live
 * @param kills whether to {@code kill -9} lock-holding workers (and start replacements)
 * @param restarts whether to inflict the store's fault ({@link Backend#fault()}): a
 * restart, or a failover
 * @param crashOnLockWithoutExpiry whether to {@code kill -9} every worker at once as soon
 * as a lock key without expiry is seen
 * @param clocks whether to step and drift the workers' wall clocks ({@link ClockNemesis})
 */
record Scenario(String name, String store, Backend backend, String description, Duration duration,
		boolean stopWhenCaught, boolean pauses, boolean kills, boolean restarts, boolean crashOnLockWithoutExpiry,
		boolean clocks) {

	/** Whether the lock is this starter's, attached or detached. */
	boolean isOurs() {
		return Worker.OURS.equals(this.store) || Worker.OURS_DETACHED.equals(this.store);
	}

	/** Whether overlaps across a fault of the store are outside the promise. */
	boolean faultLosesLocks() {
		return this.restarts && this.backend.faultLosesLocks();
	}

	String nemeses() {
		StringBuilder nemeses = new StringBuilder();
		if (this.pauses) {
			nemeses.append("SIGSTOP of a holder past the TTL; ");
		}
		if (this.kills) {
			nemeses.append("kill -9 of a holder; ");
		}
		if (this.restarts) {
			nemeses.append(this.backend.fault()).append("; ");
		}
		if (this.clocks) {
			nemeses.append("each worker's wall clock stepped and drifted within ± ")
				.append(ClockNemesis.MAX_OFFSET_TTLS)
				.append(" × TTL; ");
		}
		if (this.crashOnLockWithoutExpiry) {
			nemeses.append("kill -9 of every worker when a lock without expiry is seen; ");
		}
		return nemeses.isEmpty() ? "none" : nemeses.substring(0, nemeses.length() - 2);
	}

}
