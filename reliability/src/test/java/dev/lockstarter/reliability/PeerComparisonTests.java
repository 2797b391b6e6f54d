package dev.lockstarter.reliability;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import dev.lockstarter.reliability.Checker.Cause;
import dev.lockstarter.reliability.PeerComparison.Cell;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the comparison with the peers, on demand only (profile {@code peers}, see
 * {@link PeerReport#COMMAND}): it takes about half an hour. The report goes to
 * {@code target/reliability/PEERS.md}; a run of every scenario also rewrites its section
 * of {@code docs/RELIABILITY.md}.
 */
@Tag("peers")
class PeerComparisonTests {

	@Test
	void ourLockHoldsBesideThePeersUnderTheSameFaultsAndEveryPeerRanUnderEach() {
		String durationProperty = System.getProperty(PeerComparison.DURATION_PROPERTY);
		Duration duration = (durationProperty != null && !durationProperty.isBlank())
				? ReliabilityHarness.parseDuration(durationProperty) : PeerComparison.DEFAULT_DURATION;
		String only = System.getProperty(ReliabilityHarness.SCENARIOS_PROPERTY, "");
		Path target = Path.of("target", "reliability");
		PeerComparison.Run run = PeerComparison.run(duration, target.resolve("logs"),
				(name) -> only.isBlank() || List.of(only.split(",")).contains(name));
		PeerReport.write(run, target.resolve("PEERS.md"));
		if (only.isBlank()) {
			PeerReport.write(run, Path.of("..", "docs", "RELIABILITY.md"));
		}
		assertThat(run.cells()).isNotEmpty();
		for (Cell cell : run.cells()) {
			Findings findings = cell.findings();
			String name = cell.lock().name() + " under " + cell.fault().label();
			assertThat(findings.completed).as("%s: completed sections: %s", name, findings).isPositive();
			switch (cell.fault()) {
				case PAUSE -> assertThat(findings.pauses).as("%s: pauses", name).isPositive();
				case KILL -> assertThat(findings.kills).as("%s: kills", name).isPositive();
				case STORE -> assertThat(findings.restarts).as("%s: faults of the store", name).isPositive();
				case CLOCK -> assertThat(findings.clockSteps).as("%s: clock steps", name).isPositive();
			}
			assertThat(findings.occupancyViolations).as("%s: occupancy check agrees with the interval check", name)
				.isEqualTo(findings.totalOverlaps());
			if (cell.lock().isOurs()) {
				assertThat(findings.overlaps(Cause.REAL)).as("%s: overlaps while held as promised: %s", name, findings)
					.isZero();
				assertThat(findings.clobbers(Cause.REAL))
					.as("%s: lost updates between valid holders: %s", name, findings)
					.isZero();
				assertThat(findings.livenessViolations).as("%s: liveness", name).isEmpty();
			}
		}
	}

}
