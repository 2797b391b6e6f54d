package dev.lockstarter.test.store;

import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

import dev.lockstarter.test.contract.ReactiveLockOperationsContractTests;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;
import static org.junit.platform.testkit.engine.EventConditions.abortedWithReason;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

/**
 * The cases of {@link ReactiveLockOperationsContractTests} that need a store ability, or
 * its absence, are reported as skipped, naming the ability, on a store where they cannot
 * check anything, and run on one where they can.
 */
class ReactiveContractCapabilityCasesTests {

	@Test
	void storeThatKeepsNoResultsCaseIsSkippedOnAStoreThatKeepsResults() {
		assertSkipped(InMemoryReactiveLockOperationsContractTests.class, "storeThatKeepsNoResultsOffersNone",
				"keeps results (ResultStoringLockStore)");
	}

	@Test
	void storeThatKeepsNoResultsCaseRunsOnAStoreThatKeepsNone() {
		assertPasses(FourMethodReactiveLockOperationsContractTests.class, "storeThatKeepsNoResultsOffersNone");
	}

	@Test
	void casesOfAnAbilityAreSkippedOnAStoreWithoutIt() {
		Class<?> suite = FourMethodReactiveLockOperationsContractTests.class;
		assertSkipped(suite, "reactiveStoreOperationsMatchTheBlockingOnes", "not a ReactiveLockStore");
		assertSkipped(suite, "reactiveStoreOperationsAreLazy", "not a ReactiveLockStore");
		assertSkipped(suite, "resultKeptReactivelyIsFoundByReactiveAndBlockingCallers", "not a ResultStoringLockStore");
		assertSkipped(suite, "resultOfALeaseThatNoLongerHoldsItsLockIsNotKept", "not a ResultStoringLockStore");
		assertSkipped(suite, "keptResultExpiresAfterItsTimeToLive", "not a ResultStoringLockStore");
		assertSkipped(suite, "reactiveResultOperationsMatchTheBlockingOnes", "not a ReactiveResultStoringLockStore");
	}

	@Test
	void casesOfAnAbilityRunOnAStoreWithIt() {
		Class<?> suite = InMemoryReactiveLockOperationsContractTests.class;
		assertPasses(suite, "reactiveStoreOperationsMatchTheBlockingOnes");
		assertPasses(suite, "resultKeptReactivelyIsFoundByReactiveAndBlockingCallers");
		assertPasses(suite, "reactiveResultOperationsMatchTheBlockingOnes");
	}

	private static void assertSkipped(Class<?> suite, String test, String reason) {
		Events events = run(suite, test);
		events.assertStatistics((stats) -> stats.started(1).aborted(1));
		events.assertThatEvents().haveExactly(1, abortedWithReason(message((text) -> text.contains(reason))));
	}

	private static void assertPasses(Class<?> suite, String test) {
		run(suite, test).assertStatistics((stats) -> stats.started(1).succeeded(1));
	}

	private static Events run(Class<?> suite, String test) {
		return EngineTestKit.engine("junit-jupiter").selectors(selectMethod(suite, test)).execute().testEvents();
	}

}
