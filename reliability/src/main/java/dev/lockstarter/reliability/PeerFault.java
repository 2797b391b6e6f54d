package dev.lockstarter.reliability;

import java.time.Duration;

/**
 * The faults of the comparison with the peers, one per scenario, so that every cell of
 * its table names the fault that produced it.
 */
enum PeerFault {

	/**
	 * {@code SIGSTOP} of a holder for twice the TTL: past a lease, a watchdog or a
	 * session.
	 */
	PAUSE("pause", "pause past the TTL"),

	/** {@code kill -9} of a holder, and a new worker in its place. */
	KILL("kill", "`kill -9` of a holder"),

	/**
	 * The store's fault: a restart, a failover, or the consensus cluster's faults in
	 * turn.
	 */
	STORE("store", "store fault"),

	/** Every worker's wall clock stepped and drifted ({@link ClockNemesis}). */
	CLOCK("clock", "wall clocks stepped");

	private final String label;

	private final String heading;

	PeerFault(String label, String heading) {
		this.label = label;
		this.heading = heading;
	}

	/** The fault's column heading in the report. */
	String heading() {
		return this.heading;
	}

	/** The fault's name in scenario names and the report. */
	String label() {
		return this.label;
	}

	/**
	 * The fault in words, for the report.
	 * @param backend the servers the lock runs on
	 * @return the description
	 */
	String description(Backend backend) {
		return switch (this) {
			case PAUSE -> "`SIGSTOP` of a holder for 2 × TTL";
			case KILL -> "`kill -9` of a holder";
			case STORE -> backend.fault();
			case CLOCK ->
				"every worker's wall clock stepped and drifted within ± " + ClockNemesis.MAX_OFFSET_TTLS + " × TTL";
		};
	}

	/**
	 * The scenario that runs a lock under this fault alone.
	 * @param lock the lock
	 * @param duration how long the workload runs
	 * @return the scenario
	 */
	Scenario scenario(ComparedLock lock, Duration duration) {
		return new Scenario(lock.name() + "." + this.label, lock.store(), lock.backend(), lock.library(), duration,
				false, this == PAUSE, this == KILL, this == STORE, false, this == CLOCK);
	}

}
