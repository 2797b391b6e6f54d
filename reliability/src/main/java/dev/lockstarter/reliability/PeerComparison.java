package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * Runs the comparison with the peers: every {@link ComparedLock} under each of its
 * {@link PeerFault faults} alone, one scenario at a time, this starter's lock on the same
 * kind of servers just before the peers that share them; then runs once more every peer
 * scenario that showed an anomaly, so that only an anomaly seen twice is reported.
 */
final class PeerComparison {

	/**
	 * System property with how long each scenario's workload runs, such as {@code 30s}.
	 */
	static final String DURATION_PROPERTY = "reliability.peers.duration";

	/**
	 * The workload: the harness's, but a fault acts every three TTLs. A scenario has one
	 * kind of fault, which then comes back about as often as each kind does in the
	 * harness's own scenarios, where they take turns, and the workers get time to run
	 * between two kills.
	 */
	static final ScenarioRun.Settings SETTINGS = new ScenarioRun.Settings(ReliabilityHarness.SETTINGS.workers(),
			ReliabilityHarness.SETTINGS.threads(), ReliabilityHarness.SETTINGS.keys(),
			ReliabilityHarness.SETTINGS.ttl(), ReliabilityHarness.SETTINGS.maxSleepMillis(),
			ReliabilityHarness.SETTINGS.ttl().multipliedBy(3));

	/** How long each scenario runs by default. */
	static final Duration DEFAULT_DURATION = Duration.ofSeconds(20);

	private PeerComparison() {
	}

	/**
	 * Run the comparison.
	 * @param duration how long each scenario's workload runs
	 * @param logs where the workers' logs go
	 * @param only which scenarios to run, by name
	 * @return what every scenario found
	 */
	static Run run(Duration duration, Path logs, Predicate<String> only) {
		try {
			Files.createDirectories(logs);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Instant startedAt = Instant.now();
		String loadBefore = Machine.loadAverage();
		long started = System.nanoTime();
		List<Cell> cells = new ArrayList<>();
		for (ComparedLock lock : ComparedLock.all()) {
			for (PeerFault fault : lock.faults()) {
				Scenario scenario = fault.scenario(lock, lock.scenarioDuration(duration));
				if (only.test(scenario.name())) {
					cells.add(new Cell(lock, fault, run(scenario, logs), null));
				}
			}
		}
		for (int i = 0; i < cells.size(); i++) {
			Cell cell = cells.get(i);
			if (!cell.lock().isOurs() && isAnomaly(cell.findings())) {
				Scenario again = cell.fault().scenario(cell.lock(), cell.lock().scenarioDuration(duration));
				again = new Scenario(again.name() + ".again", again.store(), again.backend(), again.description(),
						again.duration(), again.stopWhenCaught(), again.pauses(), again.kills(), again.restarts(),
						again.crashOnLockWithoutExpiry(), again.clocks());
				cells.set(i, new Cell(cell.lock(), cell.fault(), cell.findings(), run(again, logs)));
			}
		}
		return new Run(startedAt, Duration.ofNanos(System.nanoTime() - started), duration, cells, loadBefore,
				Machine.loadAverage());
	}

	private static Findings run(Scenario scenario, Path logs) {
		Findings findings = ScenarioRun.run(scenario, SETTINGS, logs);
		System.err.println("[" + scenario.name() + "] " + findings);
		return findings;
	}

	/**
	 * Whether a lock was seen with two holders, or a lost update between two, while it
	 * was held as its library promises, or blocking a key forever.
	 */
	static boolean isAnomaly(Findings findings) {
		return findings.caughtBroken();
	}

	/**
	 * One lock under one fault.
	 *
	 * @param lock the lock
	 * @param fault the fault
	 * @param findings what the checker found
	 * @param again what it found when the scenario ran again, for a peer's anomaly
	 */
	record Cell(ComparedLock lock, PeerFault fault, Findings findings, @Nullable Findings again) {

		/**
		 * Whether a peer's anomaly is confirmed: seen twice, while this starter's lock on
		 * the same servers under the same fault showed none.
		 * @param ours this starter's lock's cell beside it, if it ran
		 * @return whether to report the anomaly
		 */
		boolean confirmedAnomaly(@Nullable Cell ours) {
			Findings again = this.again;
			return !this.lock.isOurs() && isAnomaly(this.findings) && again != null && isAnomaly(again) && ours != null
					&& !isAnomaly(ours.findings());
		}

	}

	/**
	 * A whole comparison run.
	 *
	 * @param startedAt when it started
	 * @param elapsed how long it took
	 * @param duration how long each scenario's workload ran
	 * @param cells what every scenario found, in the order they ran
	 * @param loadBefore the machine's load average before
	 * @param loadAfter the machine's load average after
	 */
	record Run(Instant startedAt, Duration elapsed, Duration duration, List<Cell> cells, String loadBefore,
			String loadAfter) {

		/**
		 * This starter's lock's cell on the same servers under the same fault.
		 * @param cell a peer's cell
		 * @return ours, or {@code null} if it did not run
		 */
		@Nullable Cell oursBeside(Cell cell) {
			for (Cell candidate : this.cells) {
				if (candidate.lock().isOurs() && candidate.lock().backend() == cell.lock().backend()
						&& candidate.fault() == cell.fault()) {
					return candidate;
				}
			}
			return null;
		}

	}

}
