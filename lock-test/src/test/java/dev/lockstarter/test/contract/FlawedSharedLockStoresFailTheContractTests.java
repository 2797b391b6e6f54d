package dev.lockstarter.test.contract;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.Events;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.EngineTestKitOnly;
import dev.lockstarter.test.contract.FlawedSharedLockStore.Flaw;

import static dev.lockstarter.test.EngineTestKitRuns.run;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

/**
 * Negative controls for the shared lock tests of {@link LockStoreContractTests} and
 * {@link LockOperationsContractTests}: run against a store that grants one permit too
 * many, lets a reader in beside a writer, forgets a waiting writer or keeps a crashed
 * writer's wait past its time-to-live, the suites must fail the tests that target that
 * flaw, and still pass those it does not touch. A store without shared locks skips them.
 * Only those tests are run, to keep this fast.
 */
class FlawedSharedLockStoresFailTheContractTests {

	@Test
	void storeThatGrantsAPermitTooManyIsCaught() {
		assertFails(ExtraPermitStore.class, "permitsAreGrantedUpToTheirNumberAndARefusalReportsTheEarliestExpiry");
		assertFails(ExtraPermitStore.class, "onlyAsManySimultaneousPermitAcquirersWinAsThePermits");
		assertFails(ExtraPermitStore.class, "aReleasedPermitFreesItsPlaceForAnotherHolder");
		assertPasses(ExtraPermitStore.class, "aWriterExcludesReadersAndOtherWriters");
	}

	@Test
	void templatesOnAStoreThatGrantsAPermitTooManyAreCaughtByThePermitsChecker() {
		assertFails(ExtraPermitTemplates.class, "permitsNeverAdmitMoreHoldersThanTheirNumberAcrossInstances");
		assertFails(ExtraPermitTemplates.class, "simultaneousCallsOnPermitsAdmitThatManyAndRefuseTheRest");
		assertPasses(ExtraPermitTemplates.class, "readersShareAndAWriterExcludesEveryoneAcrossInstances");
	}

	@Test
	void storeThatLetsAReaderInBesideAWriterIsCaught() {
		assertFails(ReaderBesideWriterStore.class, "aWriterExcludesReadersAndOtherWriters");
		assertFails(ReaderBesideWriterStore.class, "aWaitingWriterHoldsBackNewReadersUntilItIsGranted");
		assertPasses(ReaderBesideWriterStore.class,
				"permitsAreGrantedUpToTheirNumberAndARefusalReportsTheEarliestExpiry");
	}

	@Test
	void templatesOnAStoreThatLetsAReaderInBesideAWriterAreCaughtByTheReadersWriterChecker() {
		assertFails(ReaderBesideWriterTemplates.class, "readersShareAndAWriterExcludesEveryoneAcrossInstances");
		assertPasses(ReaderBesideWriterTemplates.class, "permitsNeverAdmitMoreHoldersThanTheirNumberAcrossInstances");
	}

	@Test
	void storeThatForgetsAWaitingWriterIsCaught() {
		assertFails(IgnoresWaitingWriterStore.class, "aWaitingWriterHoldsBackNewReadersUntilItIsGranted");
		assertFails(IgnoresWaitingWriterStore.class, "aWritersWaitEndsWhenItReleasesByItsToken");
		assertFails(IgnoresWaitingWriterStore.class, "aWritersWaitEndsOnceItsWaitPasses");
		assertPasses(IgnoresWaitingWriterStore.class, "aWriterThatWillNotWaitHoldsNoReaderBack");
		assertPasses(IgnoresWaitingWriterStore.class, "aWriterExcludesReadersAndOtherWriters");
	}

	@Test
	void storeWhoseWaitOutlivesTheWriterIsCaught() {
		assertFails(WaitOutlivesWriterStore.class,
				"aWaitingWriterThatStopsAskingHoldsReadersBackForAtMostItsTimeToLive");
		assertPasses(WaitOutlivesWriterStore.class, "aWriterThatGoesOnAskingHoldsReadersBackPastItsTimeToLive");
		assertPasses(WaitOutlivesWriterStore.class, "aWaitingWriterHoldsBackNewReadersUntilItIsGranted");
	}

	@Test
	void templatesOnAStoreThatForgetsAWaitingWriterStarveTheWriter() {
		assertFails(IgnoresWaitingWriterTemplates.class, "aWaitingWriterIsNotStarvedByAStreamOfOverlappingReaders",
				"a writer waiting PT5S among a stream of overlapping readers");
	}

	@Test
	void storeWithoutSharedLocksSkipsTheirTests() {
		assertSkipped(MutexOnlyStore.class, "permitsAreGrantedUpToTheirNumberAndARefusalReportsTheEarliestExpiry");
		assertSkipped(MutexOnlyStore.class, "aWaitingWriterHoldsBackNewReadersUntilItIsGranted");
		assertSkipped(MutexOnlyTemplates.class, "permitsNeverAdmitMoreHoldersThanTheirNumberAcrossInstances");
		assertSkipped(MutexOnlyTemplates.class, "aWaitingWriterIsNotStarvedByAStreamOfOverlappingReaders");
	}

	private static void assertFails(Class<?> suite, String test) {
		Events events = run(suite, test);
		events.assertStatistics((stats) -> stats.started(1).failed(1));
		events.assertThatEvents().haveExactly(1, finishedWithFailure(instanceOf(AssertionError.class)));
	}

	private static void assertFails(Class<?> suite, String test, String message) {
		Events events = run(suite, test);
		events.assertStatistics((stats) -> stats.started(1).failed(1));
		events.assertThatEvents()
			.haveExactly(1,
					finishedWithFailure(instanceOf(AssertionError.class), message((text) -> text.contains(message))));
	}

	private static void assertPasses(Class<?> suite, String test) {
		run(suite, test).assertStatistics((stats) -> stats.started(1).succeeded(1));
	}

	private static void assertSkipped(Class<?> suite, String test) {
		run(suite, test).assertStatistics((stats) -> stats.started(1).aborted(1));
	}

	@EngineTestKitOnly
	static class ExtraPermitStore extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedSharedLockStore(Flaw.EXTRA_PERMIT);
		}

	}

	@EngineTestKitOnly
	static class ExtraPermitTemplates extends LockOperationsContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedSharedLockStore(Flaw.EXTRA_PERMIT);
		}

	}

	@EngineTestKitOnly
	static class ReaderBesideWriterStore extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedSharedLockStore(Flaw.READER_BESIDE_WRITER);
		}

	}

	@EngineTestKitOnly
	static class ReaderBesideWriterTemplates extends LockOperationsContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedSharedLockStore(Flaw.READER_BESIDE_WRITER);
		}

	}

	@EngineTestKitOnly
	static class IgnoresWaitingWriterStore extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedSharedLockStore(Flaw.IGNORES_WAITING_WRITER);
		}

	}

	@EngineTestKitOnly
	static class IgnoresWaitingWriterTemplates extends LockOperationsContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedSharedLockStore(Flaw.IGNORES_WAITING_WRITER);
		}

	}

	@EngineTestKitOnly
	static class WaitOutlivesWriterStore extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new FlawedSharedLockStore(Flaw.WAIT_OUTLIVES_WRITER);
		}

	}

	@EngineTestKitOnly
	static class MutexOnlyStore extends LockStoreContractTests {

		@Override
		protected LockStore createStore() {
			return new MutexOnly();
		}

	}

	@EngineTestKitOnly
	static class MutexOnlyTemplates extends LockOperationsContractTests {

		@Override
		protected LockStore createStore() {
			return new MutexOnly();
		}

	}

	/** The in-memory store's mutexes, without its shared locks. */
	static final class MutexOnly implements LockStore {

		private final InMemoryLockStore delegate = new InMemoryLockStore();

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			return this.delegate.tryAcquire(key, token, ttl);
		}

		@Override
		public boolean release(String key, String token) {
			return this.delegate.release(key, token);
		}

		@Override
		public boolean extend(String key, String token, Duration ttl) {
			return this.delegate.extend(key, token, ttl);
		}

		@Override
		public Duration timeToExpiry(String key) {
			return this.delegate.timeToExpiry(key);
		}

	}

}
