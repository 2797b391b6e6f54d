package dev.lockstarter.test.adapter;

import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.Events;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.EngineTestKitOnly;
import dev.lockstarter.test.adapter.OwnerBlindAdapters.OwnerBlindLock;
import dev.lockstarter.test.adapter.OwnerBlindAdapters.OwnerBlindLockProvider;
import dev.lockstarter.test.adapter.OwnerBlindAdapters.OwnerBlindLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

import static dev.lockstarter.test.EngineTestKitRuns.run;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;

/**
 * Negative controls for {@link AdapterContractTests}: the suite, run against adapters
 * that ignore ownership ({@link OwnerBlindAdapters}), must fail the tests of exclusion,
 * of owner-only release, renewal and extension, and the fuzz tests, while the tests their
 * flaw does not touch pass. Only those tests are run, to keep this fast.
 */
class OwnerBlindAdaptersFailTheContractTests {

	@Test
	void ownerBlindLocksFailExclusionAcrossInstancesAndThreads() {
		assertFailsForEveryFactory("tryLockFailsWhileAnotherInstanceHoldsTheLockAndSucceedsOnceItIsReleased");
		assertFailsForEveryFactory("lockHoldsTheKeyForEveryInstanceUntilUnlocked");
		assertFailsForEveryFactory("anotherThreadCannotTakeALockThatIsHeld");
		assertFailsForEveryFactory("tryLockWithAWaitGivesUpWhenTheWaitEnds");
	}

	@Test
	void ownerBlindLocksFailOwnerOnlyUnlock() {
		assertFailsForEveryFactory("unlockByAThreadThatDoesNotHoldTheLockThrowsIllegalMonitorState");
		assertFailsForEveryFactory("unlockOfALockThatExpiredAndWasTakenOverThrowsAndLeavesTheNewHolder");
	}

	@Test
	void ownerBlindRegistryFailsOwnerOnlyRenewal() {
		assertFails("renewLockByAThreadThatDoesNotHoldTheLockThrowsIllegalState");
		assertFails("renewLockOfALockThatExpiredAndWasTakenOverThrowsIllegalStateAndLeavesTheNewHolder");
	}

	@Test
	void ownerBlindProviderFailsExclusionAndTheInvalidationOfExtendedHandles() {
		assertFails("secondLockOnTheSameNameIsEmptyInEveryInstance");
		assertFails("handleThatWasExtendedCanNeitherUnlockNorExtend");
		assertFails("lockThatExpiredAndWasTakenOverCannotBeExtendedAndLeavesTheNewHolder");
	}

	@Test
	void fuzzTestsFindLostUpdatesOfEveryOwnerBlindAdapter() {
		assertFails("lockRegistriesOfSeveralInstancesLoseNoUpdate");
		assertFails("lockProvidersOfSeveralInstancesLoseNoUpdate");
		assertFails("javaLocksOfSeveralInstancesLoseNoUpdate");
	}

	@Test
	void ownerBlindAdaptersStillPassTheTestsTheirFlawDoesNotTouch() {
		assertPasses("registryReturnsTheSameLockForAKeyWhileItIsHeld");
		assertPassesForEveryFactory("differentKeysAreIndependent");
		assertPasses("executeLockedRunsTheTaskWhileHoldingTheLock");
		assertPasses("providerLocksAFreeNameUntilUnlocked");
		assertPasses("namesAreIndependent");
		assertPassesForEveryFactory("conditionsAreNotSupported");
	}

	private static void assertFails(String test) {
		Events events = run(OwnerBlind.class, test);
		events.assertStatistics((stats) -> stats.started(1).failed(1));
		events.assertThatEvents().haveExactly(1, finishedWithFailure(instanceOf(AssertionError.class)));
	}

	private static void assertPasses(String test) {
		run(OwnerBlind.class, test).assertStatistics((stats) -> stats.started(1).succeeded(1));
	}

	private static void assertFailsForEveryFactory(String test) {
		int factories = LockFactory.values().length;
		Events events = run(selectMethod(OwnerBlind.class, test, LockFactory.class.getName()));
		events.assertStatistics((stats) -> stats.started(factories).failed(factories));
		events.assertThatEvents().haveExactly(factories, finishedWithFailure(instanceOf(AssertionError.class)));
	}

	private static void assertPassesForEveryFactory(String test) {
		int factories = LockFactory.values().length;
		run(selectMethod(OwnerBlind.class, test, LockFactory.class.getName()))
			.assertStatistics((stats) -> stats.started(factories).succeeded(factories));
	}

	@EngineTestKitOnly
	static class OwnerBlind extends AdapterContractTests {

		@Override
		protected LockStore createStore() {
			return new InMemoryLockStore();
		}

		@Override
		protected RenewableLockRegistry<DistributedLock> createLockRegistry(LockOperations operations,
				LockOptions options) {
			return new OwnerBlindLockRegistry(operations, options);
		}

		@Override
		protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
			return new OwnerBlindLockProvider(operations);
		}

		@Override
		protected Lock createLock(LockOperations operations, String key, LockOptions options) {
			return new OwnerBlindLock(operations, key, options);
		}

	}

}
