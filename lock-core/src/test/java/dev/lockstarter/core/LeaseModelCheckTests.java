package dev.lockstarter.core;

import java.time.Duration;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Model checking of the release, renewal and loss of a {@link StoreLease}: Lincheck runs,
 * on threads of their own over an in-memory store, the lease's release, the work of the
 * {@link LeaseRenewer}'s timer and that of the {@link LeaseDeadlines}' timer, explores
 * their interleavings, and checks what they leave behind. Each check is also run on a
 * broken variant of one path, and must fail there.
 * <p>
 * The timers ({@link LeaseTimer}) schedule on a real executor and are never armed here:
 * the test threads run the work that each timer runs when it fires. Each check runs once
 * before the model checker, so that its first interleaving is like the others (classes
 * initialized, call sites linked). Lincheck makes {@link System#nanoTime()}
 * deterministic; the times chosen (a time-to-live of 30 s, a deadline passed by 3 s) keep
 * every outcome away from the edges of the clock.
 */
class LeaseModelCheckTests {

	/** Interleavings explored per check; the broken variants are caught within 30. */
	private static final int INVOCATIONS = 150;

	/**
	 * Interleavings explored when a renewal races the deadline, whose race needs one
	 * thread switch at a single point of the deadlines' work; found within 100.
	 */
	private static final int RENEWAL_RACING_THE_DEADLINE_INVOCATIONS = 300;

	/**
	 * The engine's logger: its warnings of losses are not what is checked, and would make
	 * the model checker explore the logging library too.
	 */
	private static final Logger ENGINE_LOGGER = (Logger) LoggerFactory.getLogger("dev.lockstarter.core");

	private static @Nullable Level engineLevel;

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final Duration HOLD = Duration.ofSeconds(10);

	@BeforeAll
	static void silenceTheEngine() {
		engineLevel = ENGINE_LOGGER.getLevel();
		ENGINE_LOGGER.setLevel(Level.OFF);
	}

	@AfterAll
	static void restoreTheEngineLogging() {
		ENGINE_LOGGER.setLevel(engineLevel);
	}

	/**
	 * A release that must keep the lock for its minimum hold time shortens it to what is
	 * left of that time; a renewal that ran after it would lengthen it to a whole
	 * time-to-live again. The lease's guard orders the two.
	 */
	@Test
	void aReleaseRacingARenewalNeverLeavesTheLockRenewed() {
		checkReleaseRacingARenewal(Renewal.REAL);
	}

	@Test
	void aRenewalThatDoesNotTakeTheGuardIsCaught() {
		assertCaught(() -> checkReleaseRacingARenewal(Renewal.WITHOUT_GUARD));
	}

	/**
	 * A release of a lease whose local deadline passed answers as a loss, whether it or
	 * the deadlines' timer comes first: the release returns false, the loss is told once,
	 * and no release is.
	 */
	@Test
	void aReleaseRacingTheLossAtTheDeadlineAnswersAsALoss() {
		checkReleaseRacingTheDeadline(Deadlines.REAL);
	}

	@Test
	void deadlinesThatTellALossWithoutTakingTheLeaseAreCaught() {
		assertCaught(() -> checkReleaseRacingTheDeadline(Deadlines.TELLING_WITHOUT_TAKING));
	}

	/**
	 * A renewal that the store confirms for a lease that its deadline made lost meanwhile
	 * has lengthened a lock that no one holds any longer: it must be released, so that
	 * the next owner does not wait a whole time-to-live for it. (Without a confirmed
	 * renewal, the lock is left to expire, as the deadlines make no store call.)
	 * <p>
	 * This found a race: the deadlines' timer read the lease held and its old deadline
	 * passed ({@code LeaseDeadlines.loseOverdue}); the renewer then extended the lock,
	 * moved the deadline and found the lease still held ({@code StoreLease.renewed}), so
	 * did not release; the timer then lost the lease. The lease ended lost, its lock held
	 * for a new time-to-live, and its {@code release()} answered false without deleting
	 * it. Now the timer, once it has lost the lease, reads the deadline again and
	 * releases the lock if a renewal moved it.
	 */
	@Test
	void aRenewalConfirmedAfterTheDeadlineReleasesTheLock() {
		checkRenewalRacingTheDeadline(Renewal.REAL);
	}

	@Test
	void aRenewalThatDoesNotLookForALossIsCaught() {
		assertCaught(() -> checkRenewalRacingTheDeadline(Renewal.WITHOUT_LOOKING_FOR_A_LOSS));
	}

	private static void checkReleaseRacingARenewal(Renewal renewal) {
		modelCheck(INVOCATIONS, () -> {
			ModelCheckedLease fixture = new ModelCheckedLease(LockOptions.ttl(TTL).withHoldAtLeast(HOLD),
					System.nanoTime());
			Release release = new Release(fixture);
			run(release, new Renewer(fixture, renewal));
			check(release.released, "the release found the lock held");
			check(fixture.lease.state() == StoreLease.State.RELEASED, "the lease is released");
			check(fixture.store.timeToExpiry(ModelCheckedLease.KEY).compareTo(HOLD) <= 0,
					"the lock is kept no longer than its minimum hold time, not "
							+ fixture.store.timeToExpiry(ModelCheckedLease.KEY));
			check(fixture.releasedEvents.get() == 1 && fixture.lostEvents.get() == 0, "one release told, no loss");
		});
	}

	private static void checkReleaseRacingTheDeadline(Deadlines deadlines) {
		modelCheck(INVOCATIONS, () -> {
			ModelCheckedLease fixture = pastItsDeadline();
			Release release = new Release(fixture);
			run(release, new DeadlineTimer(fixture, deadlines));
			check(!release.released, "the release of a lease past its deadline answers false");
			check(fixture.lease.state() == StoreLease.State.LOST, "the lease is lost");
			check(fixture.lostEvents.get() == 1, "the loss is told once, not " + fixture.lostEvents.get() + " times");
			check(fixture.releasedEvents.get() == 0, "no release is told");
		});
	}

	private static void checkRenewalRacingTheDeadline(Renewal renewal) {
		modelCheck(RENEWAL_RACING_THE_DEADLINE_INVOCATIONS, () -> {
			ModelCheckedLease fixture = pastItsDeadline();
			run(new Renewer(fixture, renewal), new DeadlineTimer(fixture, Deadlines.REAL));
			boolean confirmed = fixture.store.confirmedExtensions.get() > 0;
			if (fixture.lease.state() == StoreLease.State.LOST) {
				check(!confirmed || !fixture.storeHolds(),
						"a lost lease whose renewal the store confirmed leaves the lock free");
				check(fixture.lostEvents.get() == 1, "the loss is told once");
			}
			else {
				check(confirmed && fixture.storeHolds() && fixture.lease.isHeld(),
						"a lease still held was renewed in time");
				check(fixture.lostEvents.get() == 0, "no loss is told");
			}
		});
	}

	/**
	 * A lease whose local deadline passed 3 s ago, while the store still holds its lock.
	 */
	private static ModelCheckedLease pastItsDeadline() {
		return new ModelCheckedLease(LockOptions.ttl(TTL), System.nanoTime() - TTL.toNanos());
	}

	/**
	 * Run the test once first, so that the classes it uses are initialized and its call
	 * sites linked before the model checker's first interleaving, which is then like the
	 * others (a broken variant may fail already); then model-check it.
	 */
	private static void modelCheck(int invocations, Runnable test) {
		try {
			test.run();
		}
		catch (AssertionError ex) {
			// Checked below, under the model checker
		}
		Lincheck.runConcurrentTest(invocations, test);
	}

	/** Run the actions on threads of their own and wait for them. */
	private static void run(Runnable first, Runnable second) {
		Thread one = new Thread(first);
		Thread two = new Thread(second);
		one.start();
		two.start();
		try {
			one.join();
			two.join();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void check(boolean condition, String expectation) {
		if (!condition) {
			throw new AssertionError("Expected that " + expectation);
		}
	}

	private static void assertCaught(Runnable check) {
		assertThatExceptionOfType(LincheckAssertionError.class).isThrownBy(check::run)
			.withMessageContaining("Expected that");
	}

	/**
	 * What the renewer does to the lease, or a broken variant of it. (The threads run
	 * named classes and the variants are chosen here: with lambdas and method references
	 * as the threads' work, the same checks caught a broken variant far later, or not at
	 * all, as the model checker does not follow what such objects hold.)
	 */
	private enum Renewal {

		REAL,

		/** What the renewer does for one lease, without the lease's guard. */
		WITHOUT_GUARD,

		/**
		 * What the renewer does for one lease, recording the confirmed extension without
		 * looking whether the lease was lost meanwhile.
		 */
		WITHOUT_LOOKING_FOR_A_LOSS;

		void renew(ModelCheckedLease fixture) {
			StoreLease lease = fixture.lease;
			switch (this) {
				case WITHOUT_GUARD:
					if (lease.state() == StoreLease.State.HELD) {
						long sentAt = System.nanoTime();
						if (lease.store().extend(lease.storeKey(), lease.token(), lease.ttl())) {
							lease.renewed(sentAt);
						}
					}
					break;
				case WITHOUT_LOOKING_FOR_A_LOSS:
					if (lease.guard.tryLock()) {
						try {
							if (lease.state() == StoreLease.State.HELD) {
								long sentAt = System.nanoTime();
								if (lease.store().extend(lease.storeKey(), lease.token(), lease.ttl())) {
									lease.extended(sentAt);
								}
							}
						}
						finally {
							lease.guard.unlock();
						}
					}
					break;
				default:
					fixture.renewDue();
			}
		}

	}

	/** What the deadlines' timer does, or a broken variant of it. */
	private enum Deadlines {

		REAL,

		/**
		 * Deadlines that tell the loss of a lease they see held, without moving it to
		 * lost.
		 */
		TELLING_WITHOUT_TAKING;

		void loseOverdue(ModelCheckedLease fixture) {
			if (this == REAL) {
				fixture.loseOverdue();
				return;
			}
			StoreLease lease = fixture.lease;
			if (lease.state() == StoreLease.State.HELD && System.nanoTime() - lease.lossAt() >= 0) {
				fixture.lostEvents.incrementAndGet();
			}
		}

	}

	/** The holder's release of the lease. */
	private static final class Release implements Runnable {

		private final ModelCheckedLease fixture;

		volatile boolean released;

		Release(ModelCheckedLease fixture) {
			this.fixture = fixture;
		}

		@Override
		public void run() {
			this.released = this.fixture.lease.release();
		}

	}

	/** The renewer's timer firing. */
	private static final class Renewer implements Runnable {

		private final ModelCheckedLease fixture;

		private final Renewal renewal;

		Renewer(ModelCheckedLease fixture, Renewal renewal) {
			this.fixture = fixture;
			this.renewal = renewal;
		}

		@Override
		public void run() {
			this.renewal.renew(this.fixture);
		}

	}

	/** The deadlines' timer firing. */
	private static final class DeadlineTimer implements Runnable {

		private final ModelCheckedLease fixture;

		private final Deadlines deadlines;

		DeadlineTimer(ModelCheckedLease fixture, Deadlines deadlines) {
			this.fixture = fixture;
			this.deadlines = deadlines;
		}

		@Override
		public void run() {
			this.deadlines.loseOverdue(this.fixture);
		}

	}

}
