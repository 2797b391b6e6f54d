package dev.lockstarter.reliability;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.reliability.Checker.Cause;
import dev.lockstarter.reliability.ReliabilityHarness.HttpResult;
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
		for (Result result : run.ours()) {
			Findings ours = result.findings();
			String name = result.scenario().name();
			assertThat(ours.overlaps(Cause.REAL)).as("%s: overlaps while the lock was held as promised: %s", name, ours)
				.isZero();
			assertThat(ours.clobbers(Cause.REAL))
				.as("%s: lost updates caused by a holder of a valid lock: %s", name, ours)
				.isZero();
			assertThat(ours.livenessViolations).as("%s: liveness violations: %s", name, ours).isEmpty();
			assertThat(ours.locksWithoutExpirySeen).as("%s: locks without expiry: %s", name, ours).isZero();
			assertThat(ours.completed).as("%s: completed sections: %s", name, ours).isPositive();
			assertThat(ours.pauses).as("%s: pauses: %s", name, ours).isPositive();
			assertThat(ours.kills).as("%s: kills: %s", name, ours).isPositive();
			assertThat(ours.restarts).as("%s: faults of the store: %s", name, ours).isPositive();
			assertThat(ours.clockSteps).as("%s: steps of a worker's wall clock: %s", name, ours).isPositive();
			if (Worker.OURS_DETACHED.equals(result.scenario().store())) {
				assertThat(ours.longSections).as("%s: sections renewed on the second instance: %s", name, ours)
					.isPositive();
			}
			if (result.scenario().backend().isQuorum()) {
				assertThat(ours.restarts).as("%s: faults of the cluster, each kind at least once: %s", name, ours)
					.isGreaterThanOrEqualTo(QuorumFaults.kinds().size());
			}
			if (!result.scenario().faultLosesLocks()) {
				assertThat(ours.overlaps(Cause.STORE_LOST)).as("%s: overlaps across a fault that keeps data", name)
					.isZero();
			}
			if (ours.tokensSeen && !result.scenario().faultLosesLocks()) {
				// Every write through the fenced register carries its lease's token, and
				// tokens increase: a stale holder's write is refused, paused or not
				assertThat(ours.fencedLostUpdates).as("%s: lost updates on the fenced register: %s", name, ours)
					.isZero();
			}
			if (result.scenario().backend() == Backend.REDIS) {
				assertThat(ours.staleRejected).as("%s: stale writes rejected by fencing: %s", name, ours).isPositive();
			}
		}
		for (Result result : run.results()) {
			Findings findings = result.findings();
			assertThat(findings.occupancyViolations)
				.as("occupancy check agrees with the interval check in %s: %s", result.scenario().name(), findings)
				.isEqualTo(findings.totalOverlaps());
		}
		for (HttpResult result : run.http()) {
			HttpFindings http = result.findings();
			String name = result.scenario().name();
			assertThat(HttpReport.verdict(result)).as("%s: %s", name, http).doesNotContain("BROKEN");
			assertThat(http.registrations.duplicates).as("%s: names registered twice: %s", name, http).isZero();
			assertThat(http.registrations.lost).as("%s: registrations lost: %s", name, http).isZero();
			assertThat(http.payments.unexplainedDoubles()).as("%s: unexplained double payments: %s", name, http)
				.isZero();
			if (result.scenario().transactional()) {
				assertThat(http.payments.doubles).as("%s: double payments, transactional: %s", name, http).isZero();
			}
			assertThat(http.payments.executions).as("%s: payments executed: %s", name, http).isPositive();
			assertThat(http.kills).as("%s: instance kills: %s", name, http).isPositive();
			assertThat(http.storePauses).as("%s: store pauses: %s", name, http).isPositive();
			assertThat(http.crashes.keySet()).as("%s: crash points reached: %s", name, http)
				.containsExactlyInAnyOrderElementsOf(HttpScenarioRun.CRASH_POINTS);
			if (result.scenario().registrations()) {
				assertThat(http.registrations.stored).as("%s: users stored: %s", name, http).isPositive();
				assertThat(HttpReport.unlockedCaught(http)).as("%s: unlocked registration caught: %s", name, http)
					.isTrue();
			}
			if (result.scenario().lateResponseControl()) {
				assertThat(HttpReport.lateCaught(http)).as("%s: late response caught: %s", name, http).isTrue();
			}
		}
		for (Result control : run.controls()) {
			assertThat(control.findings().caughtBroken())
				.as("broken lock %s caught: %s", control.scenario().name(), control.findings())
				.isTrue();
			if (control.scenario().clocks()) {
				// Caught by the clock nemesis alone: it moved clocks, and nothing else
				// ran
				assertThat(control.findings().clockSteps).as("%s: clock steps", control.scenario().name()).isPositive();
				assertThat(control.findings().pauses + control.findings().kills + control.findings().restarts)
					.as("%s: other nemeses", control.scenario().name())
					.isZero();
				assertThat(control.findings().overlaps(Cause.REAL))
					.as("%s: overlaps while the lock was held as promised", control.scenario().name())
					.isPositive();
			}
		}
		if (System.getProperty(ReliabilityHarness.SCENARIOS_PROPERTY, "").isBlank()) {
			assertThat(run.controls()).as("the wall-clock control ran")
				.anyMatch((control) -> control.scenario().clocks());
		}
	}

}
