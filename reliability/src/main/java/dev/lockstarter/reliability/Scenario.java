package dev.lockstarter.reliability;

import java.time.Duration;

/**
 * One run of the workload: a lock (this starter's, or a broken one), the nemeses that run
 * during it, and how long it lasts.
 *
 * @param name short name, used in the report and the worker log file names
 * @param store {@link Worker#OURS} or a {@link BrokenLockStore.Flaw} name
 * @param description what the scenario shows, for the report
 * @param duration how long the workload runs at most
 * @param stopWhenCaught whether to end as soon as the checker finds the lock broken
 * @param pauses whether to {@code SIGSTOP} a lock-holding worker past the time-to-live
 * @param kills whether to {@code kill -9} lock-holding workers (and start replacements)
 * @param restarts whether to restart the lock Redis, which runs with
 * {@code appendfsync always}
 * @param crashOnLockWithoutExpiry whether to {@code kill -9} every worker at once as soon
 * as a lock key without expiry is seen
 */
record Scenario(String name, String store, String description, Duration duration, boolean stopWhenCaught,
		boolean pauses, boolean kills, boolean restarts, boolean crashOnLockWithoutExpiry) {

	boolean isOurs() {
		return Worker.OURS.equals(this.store);
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
			nemeses.append("lock Redis restart (AOF, fsync always); ");
		}
		if (this.crashOnLockWithoutExpiry) {
			nemeses.append("kill -9 of every worker when a lock without expiry is seen; ");
		}
		return nemeses.isEmpty() ? "none" : nemeses.substring(0, nemeses.length() - 2);
	}

}
