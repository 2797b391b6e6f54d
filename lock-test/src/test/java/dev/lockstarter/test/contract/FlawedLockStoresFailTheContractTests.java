package dev.lockstarter.test.contract;

import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.Events;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.EngineTestKitOnly;
import dev.lockstarter.test.contract.FlawedLockStore.Flaw;

import static dev.lockstarter.test.EngineTestKitRuns.run;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;

/**
 * Negative controls for {@link LockStoreContractTests}: the suite, run against a store
 * with a classic flaw (among them multi-key acquisitions that do not roll back, or that
 * check only their first key), must fail the tests that target that flaw. Only those
 * tests are run, to keep this fast.
 */
class FlawedLockStoresFailTheContractTests {

	@Test
	void checkThenSetStoreFailsSimultaneousAcquisition() {
		assertFails(CheckThenSet.class, "onlyOneOfManySimultaneousAcquirersWins");
	}

	@Test
	void ownerBlindReleaseFailsOwnerOnlyRelease() {
		assertFails(OwnerBlindRelease.class, "onlyTheOwnerCanRelease");
		assertFails(OwnerBlindRelease.class, "staleHolderCannotReleaseTheNewHoldersLock");
	}

	@Test
	void ownerBlindExtendFailsOwnerOnlyExtend() {
		assertFails(OwnerBlindExtend.class, "onlyTheOwnerCanExtend");
		assertFails(OwnerBlindExtend.class, "staleHolderCannotExtendTheNewHoldersLock");
	}

	@Test
	void failedAcquisitionThatResetsTheTimeToLiveIsCaught() {
		assertFails(FailedAcquireResetsTtl.class, "failedAcquisitionDoesNotChangeTheHoldersTimeToLive");
	}

	@Test
	void timeToExpiryThatIgnoresTheExpiryIsCaught() {
		assertFails(ExpiredLockReportedHeld.class, "timeToExpiryIsZeroOnceTheTimeToLivePasses");
		assertPasses(ExpiredLockReportedHeld.class, "timeToExpiryOfAHeldKeyIsTheHoldersRemainingTimeToLive");
	}

	@Test
	void fencingTokenDrawnBeforeTheKeyIsTakenIsCaught() {
		assertFails(FencingDrawnBeforeInsert.class, "ownersOfOneKeyGetIncreasingFencingTokens");
		assertPasses(FencingDrawnBeforeInsert.class, "onlyOneOfManySimultaneousAcquirersWins");
	}

	@Test
	void multiKeyStoreThatKeepsWhatItTookBeforeAHeldKeyIsCaught() {
		assertFails(MultiKeyWithoutRollback.class, "multiKeyStoreTakesNothingWhenAnyKeyIsHeld");
		assertPasses(MultiKeyWithoutRollback.class, "multiKeyStoreAcquiresEveryFreeKeyWithAFencingTokenEach");
	}

	@Test
	void multiKeyStoreThatChecksOnlyItsFirstKeyIsCaught() {
		assertFails(MultiKeyCheckingFirstKeyOnly.class, "multiKeyStoreTakesNothingWhenAnyKeyIsHeld");
		assertFails(MultiKeyCheckingFirstKeyOnly.class, "overlappingKeySetsInAnyOrderNeverHoldAKeyTwice");
	}

	@Test
	void flawedStoresStillPassTheTestsTheirFlawDoesNotTouch() {
		assertPasses(OwnerBlindRelease.class, "onlyTheOwnerCanExtend");
		assertPasses(OwnerBlindExtend.class, "onlyTheOwnerCanRelease");
		assertPasses(FailedAcquireResetsTtl.class, "releasedLockCanBeAcquiredAgain");
		assertPasses(FailedAcquireResetsTtl.class, "timeToExpiryIsZeroOnceTheTimeToLivePasses");
		assertPasses(MultiKeyWithoutRollback.class, "readingTheTimeToExpiryLeavesTheLockAlone");
	}

	private static void assertFails(Class<? extends LockStoreContractTests> suite, String test) {
		Events events = run(suite, test);
		events.assertStatistics((stats) -> stats.started(1).failed(1));
		events.assertThatEvents().haveExactly(1, finishedWithFailure(instanceOf(AssertionError.class)));
	}

	private static void assertPasses(Class<? extends LockStoreContractTests> suite, String test) {
		run(suite, test).assertStatistics((stats) -> stats.started(1).succeeded(1));
	}

	@EngineTestKitOnly
	static class CheckThenSet extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedLockStore(Flaw.CHECK_THEN_SET);
		}

	}

	@EngineTestKitOnly
	static class FencingDrawnBeforeInsert extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedLockStore(Flaw.FENCING_DRAWN_BEFORE_INSERT);
		}

		@Override
		protected boolean issuesFencingTokens() {
			return true;
		}

	}

	@EngineTestKitOnly
	static class OwnerBlindRelease extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedLockStore(Flaw.OWNER_BLIND_RELEASE);
		}

	}

	@EngineTestKitOnly
	static class OwnerBlindExtend extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedLockStore(Flaw.OWNER_BLIND_EXTEND);
		}

	}

	@EngineTestKitOnly
	static class MultiKeyWithoutRollback extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedMultiKeyLockStore(FlawedMultiKeyLockStore.Flaw.NO_ROLLBACK);
		}

		@Override
		protected boolean issuesFencingTokens() {
			return true;
		}

	}

	@EngineTestKitOnly
	static class MultiKeyCheckingFirstKeyOnly extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedMultiKeyLockStore(FlawedMultiKeyLockStore.Flaw.CHECKS_FIRST_KEY_ONLY);
		}

		@Override
		protected boolean issuesFencingTokens() {
			return true;
		}

	}

	@EngineTestKitOnly
	static class ExpiredLockReportedHeld extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedLockStore(Flaw.EXPIRED_LOCK_REPORTED_HELD);
		}

	}

	@EngineTestKitOnly
	static class FailedAcquireResetsTtl extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedLockStore(Flaw.FAILED_ACQUIRE_RESETS_TTL);
		}

	}

}
