package dev.lockstarter.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.lockstarter.reliability.Checker.Cause;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link Checker} on hand-written oracle logs.
 */
class CheckerTests {

	private final Log log = new Log();

	@Test
	void sectionsOneAfterTheOtherDoNotOverlap() {
		this.log.section("a", "k", "w1", 1, true);
		this.log.section("b", "k", "w2", 1, true);
		Findings findings = check(2);
		assertThat(findings.totalOverlaps()).isZero();
		assertThat(findings.occupancyViolations).isZero();
		assertThat(findings.lostUpdates).isZero();
		assertThat(findings.completed).isEqualTo(2);
	}

	@Test
	void twoValidSectionsInsideAtOnceAreARealOverlap() {
		this.log.enter("a", "k", "w1", 1);
		this.log.read("a", 0);
		this.log.enter("b", "k", "w2", 2);
		this.log.read("b", 0);
		this.log.write("a");
		this.log.write("b");
		this.log.exit("a", true);
		this.log.exit("b", true);
		Findings findings = check(1);
		assertThat(findings.overlaps(Cause.REAL)).isEqualTo(1);
		assertThat(findings.occupancyViolations).isEqualTo(1);
		assertThat(findings.lostUpdates).isEqualTo(1);
		assertThat(findings.clobbers(Cause.REAL)).isEqualTo(1);
		assertThat(findings.caughtBroken()).isTrue();
	}

	@Test
	void overlapWithASectionWhoseWorkerWasPausedIsExplainedByThePause() {
		this.log.enter("a", "k", "w1", 1);
		this.log.read("a", 0);
		this.log.mark("pause", "w1");
		this.log.section("b", "k", "w2", 1, true);
		this.log.mark("resume", "w1");
		this.log.write("a");
		this.log.exit("a", false);
		Findings findings = check(1);
		assertThat(findings.overlaps(Cause.PAUSE)).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isZero();
		assertThat(findings.clobbers(Cause.PAUSE)).isEqualTo(1);
		assertThat(findings.lostUpdates).isEqualTo(1);
		assertThat(findings.caughtBroken()).isFalse();
	}

	@Test
	void pausedSectionThatStillHeldItsLockDoesNotExcuseAnOverlap() {
		this.log.enter("a", "k", "w1", 1);
		this.log.mark("pause", "w1");
		this.log.section("b", "k", "w2", 1, true);
		this.log.mark("resume", "w1");
		this.log.exit("a", true);
		assertThat(check(1).overlaps(Cause.REAL)).isEqualTo(1);
	}

	@Test
	void overlapWithALostLeaseWithoutPauseIsCountedApart() {
		this.log.enter("a", "k", "w1", 1);
		this.log.section("b", "k", "w2", 1, true);
		this.log.exit("a", false);
		Findings findings = check(1);
		assertThat(findings.overlaps(Cause.LOST)).isEqualTo(1);
		assertThat(findings.exitedNotHeld).isEqualTo(1);
	}

	@Test
	void sectionKilledInsideCountsAsValid() {
		this.log.enter("a", "k", "w1", 1);
		this.log.mark("kill", "w1");
		this.log.section("b", "k", "w2", 1, true);
		this.log.add("X " + this.log.next() + " a k 0");
		Findings findings = check(0);
		assertThat(findings.killedInside).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isEqualTo(1);
	}

	@Test
	void sectionKilledInsideAfterItsLockToldOfItsLossIsCountedApart() {
		this.log.enter("a", "k", "w1", 1);
		this.log.mark("lost", "a");
		this.log.section("b", "k", "w2", 2, true);
		this.log.mark("kill", "w1");
		this.log.add("X " + this.log.next() + " a k " + (1000 + this.log.next()));
		Findings findings = check(0);
		assertThat(findings.killedInside).isEqualTo(1);
		assertThat(findings.lossesTold).isEqualTo(1);
		assertThat(findings.overlaps(Cause.LOST)).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isZero();
	}

	@Test
	void lossToldBySectionThatExitedHoldingItsLockChangesNothing() {
		this.log.enter("a", "k", "w1", 1);
		this.log.section("b", "k", "w2", 2, true);
		this.log.exit("a", true);
		this.log.mark("lost", "a");
		Findings findings = check(1);
		assertThat(findings.lossesTold).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isEqualTo(1);
	}

	@Test
	void overlapBeforeALossToldWithinThePromiseIsReal() {
		this.log.enter("a", "k", "w1", 1);
		this.log.read("a", 0);
		this.log.section("b", "k", "w1", 2, true);
		this.log.mark("lost", "a");
		this.log.mark("promised", "a");
		this.log.write("a");
		this.log.exit("a", false);
		Findings findings = check(1);
		assertThat(findings.lossesWithinPromise).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isEqualTo(1);
		assertThat(findings.clobbers(Cause.REAL)).isEqualTo(1);
		assertThat(findings.caughtBroken()).isTrue();
	}

	@Test
	void overlapAfterALossToldWithinThePromiseIsCountedApart() {
		this.log.enter("a", "k", "w1", 1);
		this.log.mark("lost", "a");
		this.log.mark("promised", "a");
		this.log.section("b", "k", "w2", 2, true);
		this.log.exit("a", false);
		Findings findings = check(1);
		assertThat(findings.overlaps(Cause.LOST)).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isZero();
	}

	@Test
	void overlapBeforeALossToldPastThePromiseIsCountedApart() {
		this.log.enter("a", "k", "w1", 1);
		this.log.section("b", "k", "w2", 2, true);
		this.log.mark("lost", "a");
		this.log.exit("a", false);
		Findings findings = check(1);
		assertThat(findings.lossesWithinPromise).isZero();
		assertThat(findings.overlaps(Cause.LOST)).isEqualTo(1);
	}

	@Test
	void sectionKilledInsideAfterALossToldWithinThePromiseMakesAnEarlierOverlapReal() {
		this.log.enter("a", "k", "w1", 1);
		this.log.section("b", "k", "w1", 2, true);
		this.log.mark("lost", "a");
		this.log.mark("promised", "a");
		this.log.mark("kill", "w1");
		this.log.add("X " + this.log.next() + " a k " + (1000 + this.log.next()));
		Findings findings = check(1);
		assertThat(findings.killedInside).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isEqualTo(1);
	}

	@Test
	void sectionPausedPastItsLockThenKilledInsideIsExplainedByThePause() {
		this.log.enter("a", "k", "w1", 1);
		this.log.mark("pause", "w1");
		this.log.section("b", "k", "w2", 1, true);
		this.log.mark("resume", "w1");
		this.log.mark("kill", "w1");
		this.log.add("X " + this.log.next() + " a k " + (1000 + this.log.next()));
		Findings findings = check(0);
		assertThat(findings.killedInside).isEqualTo(1);
		assertThat(findings.overlaps(Cause.PAUSE)).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isZero();
	}

	@Test
	void whileRunningASectionNotYetCheckedNeverMakesAnOverlapReal() {
		this.log.enter("a", "k", "w1", 1);
		this.log.enter("b", "k", "w2", 2);
		Findings running = Checker.check(this.log.events, Map.of("k", 0L), false, false);
		assertThat(running.overlaps(Cause.REAL)).isZero();
		assertThat(running.overlaps(Cause.LOST)).isEqualTo(1);
		assertThat(Checker.check(this.log.events, Map.of("k", 0L), true, false).overlaps(Cause.REAL)).isEqualTo(1);
	}

	@Test
	void overlapAcrossAStoreFaultThatLosesLocksIsCountedApart() {
		this.log.enter("a", "k", "w1", 1);
		this.log.read("a", 0);
		this.log.mark("restart", "memcached");
		this.log.mark("restarted", "memcached");
		this.log.section("b", "k", "w2", 2, true);
		this.log.write("a");
		this.log.exit("a", true);
		Findings findings = check(1, true);
		assertThat(findings.overlaps(Cause.STORE_LOST)).isEqualTo(1);
		assertThat(findings.clobbers(Cause.STORE_LOST)).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isZero();
		assertThat(findings.restarts).isEqualTo(1);
		assertThat(findings.caughtBroken()).isFalse();
	}

	@Test
	void overlapOfSectionsEnteredDuringAFailoverThatLosesLocksIsCountedApart() {
		this.log.mark("restart", "sentinel");
		this.log.enter("a", "k", "w1", 1);
		this.log.section("b", "k", "w2", 2, true);
		this.log.exit("a", true);
		this.log.mark("restarted", "sentinel");
		this.log.enter("c", "k", "w3", 3);
		this.log.section("d", "k", "w1", 4, true);
		this.log.exit("c", true);
		Findings findings = check(2, true);
		assertThat(findings.overlaps(Cause.STORE_LOST)).isEqualTo(1);
		assertThat(findings.overlaps(Cause.REAL)).isEqualTo(1);
	}

	@Test
	void overlapAcrossARestartOfAStoreThatKeepsItsDataIsReal() {
		this.log.enter("a", "k", "w1", 1);
		this.log.mark("restart", "redis");
		this.log.mark("restarted", "redis");
		this.log.section("b", "k", "w2", 2, true);
		this.log.exit("a", true);
		assertThat(check(1, false).overlaps(Cause.REAL)).isEqualTo(1);
	}

	@Test
	void overlapOfTwoSectionsEnteredAfterTheSameStoreFaultIsReal() {
		this.log.mark("restart", "memcached");
		this.log.mark("restarted", "memcached");
		this.log.enter("a", "k", "w1", 1);
		this.log.section("b", "k", "w2", 2, true);
		this.log.exit("a", true);
		assertThat(check(1, true).overlaps(Cause.REAL)).isEqualTo(1);
	}

	@Test
	void staleFencedWritesAreCounted() {
		this.log.section("a", "k", "w1", 1, true);
		this.log.add("F " + this.log.next() + " a 0");
		assertThat(check(1).staleRejected).isEqualTo(1);
	}

	@Test
	void sectionsLastingAtLeastALengthAreCountedWhenTheyExit() {
		this.log.enter("a", "k", "w1", 1);
		this.log.enter("b", "k", "w2", 2);
		this.log.enter("c", "k", "w3", 3);
		this.log.add("X 10 a x 1010");
		this.log.add("X 11 b x 1003");
		this.log.add("X 12 c k 1012");
		assertThat(Checker.sectionsLasting(this.log.events, 9)).isEqualTo(1);
	}

	@Test
	void unknownEventIsAnError() {
		this.log.add("Z 1 a");
		assertThatIllegalStateException().isThrownBy(() -> check(0)).withMessageContaining("Z 1 a");
	}

	private Findings check(long counter) {
		return check(counter, false);
	}

	private Findings check(long counter, boolean faultLosesLocks) {
		return Checker.check(this.log.events, Map.of("k", counter), true, faultLosesLocks);
	}

	/**
	 * An oracle log written by hand, with sequence numbers and times that increase.
	 */
	private static final class Log {

		final List<String> events = new ArrayList<>();

		private long seq;

		private final Map<String, Long> occupancy = new java.util.HashMap<>();

		long next() {
			return ++this.seq;
		}

		void add(String event) {
			this.events.add(event);
		}

		void enter(String sid, String key, String worker, long token) {
			long occ = this.occupancy.merge(key, 1L, Long::sum);
			add("E " + next() + " " + sid + " " + key + " " + worker + " " + token + " " + occ + " " + (1000 + this.seq)
					+ " " + (1000 + this.seq - 1));
		}

		void read(String sid, long value) {
			add("R " + next() + " " + sid + " " + value);
		}

		void write(String sid) {
			add("W " + next() + " " + sid);
		}

		void exit(String sid, boolean held) {
			String key = this.events.stream()
				.filter((e) -> e.startsWith("E ") && e.split(" ")[2].equals(sid))
				.findFirst()
				.orElseThrow()
				.split(" ")[3];
			this.occupancy.merge(key, -1L, Long::sum);
			add("X " + next() + " " + sid + " x " + (1000 + this.seq));
			add("M " + next() + " held " + sid + " " + (held ? "1" : "0") + " " + (1000 + this.seq));
		}

		void section(String sid, String key, String worker, long token, boolean held) {
			enter(sid, key, worker, token);
			read(sid, 0);
			write(sid);
			exit(sid, held);
		}

		void mark(String what, String worker) {
			add("M " + next() + " " + what + " " + worker + " " + (1000 + this.seq));
		}

	}

}
