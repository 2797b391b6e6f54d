package dev.lockstarter.reliability;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.reliability.Checker.Cause;
import dev.lockstarter.reliability.ReliabilityHarness.Result;
import dev.lockstarter.reliability.ReliabilityHarness.Run;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the reliability harness: the short form by default, the long form with
 * {@code -Dreliability.duration=10m}. The report goes to
 * {@code target/reliability/RELIABILITY.md}; the long form also writes
 * {@code docs/RELIABILITY.md} at the project root.
 */
class ReliabilityHarnessTests {

	@Test
	void ourLockNeverHasTwoHoldersOutsideItsDocumentedLimitsAndEveryBrokenLockIsCaught() {
		String durationProperty = System.getProperty(ReliabilityHarness.DURATION_PROPERTY);
		Duration longDuration = (durationProperty != null && !durationProperty.isBlank())
				? ReliabilityHarness.parseDuration(durationProperty) : null;
		Path target = Path.of("target", "reliability");
		Run run = ReliabilityHarness.run(longDuration, target.resolve("logs"));
		ReliabilityReport.write(run, target.resolve("RELIABILITY.md"));
		if (longDuration != null) {
			ReliabilityReport.write(run, Path.of("..", "docs", "RELIABILITY.md"));
		}
		Findings ours = run.ours().findings();
		assertThat(ours.overlaps(Cause.REAL)).as("overlaps while the lock was held as promised: %s", ours).isZero();
		assertThat(ours.clobbers(Cause.REAL)).as("lost updates caused by a holder of a valid lock: %s", ours).isZero();
		assertThat(ours.livenessViolations).as("liveness violations: %s", ours).isEmpty();
		assertThat(ours.locksWithoutExpirySeen).as("locks without expiry: %s", ours).isZero();
		assertThat(ours.completed).as("completed sections: %s", ours).isPositive();
		assertThat(ours.pauses).as("pauses: %s", ours).isPositive();
		assertThat(ours.kills).as("kills: %s", ours).isPositive();
		assertThat(ours.restarts).as("restarts: %s", ours).isPositive();
		assertThat(ours.staleRejected).as("stale writes rejected by fencing: %s", ours).isPositive();
		for (Result result : run.results()) {
			Findings findings = result.findings();
			assertThat(findings.occupancyViolations)
				.as("occupancy check agrees with the interval check in %s: %s", result.scenario().name(), findings)
				.isEqualTo(findings.totalOverlaps());
		}
		for (Result control : run.controls()) {
			assertThat(control.findings().caughtBroken())
				.as("broken lock %s caught: %s", control.scenario().name(), control.findings())
				.isTrue();
		}
	}

}
