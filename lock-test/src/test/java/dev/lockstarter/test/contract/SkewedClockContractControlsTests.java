package dev.lockstarter.test.contract;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.Events;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.test.EngineTestKitOnly;

import static dev.lockstarter.test.EngineTestKitRuns.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

/**
 * Controls for {@link SkewedClockContractTests}: a store that judges expiry by the
 * writers' and readers' wall clocks fails it, and a sound store whose holder stalls past
 * its time-to-live once (as a paused test JVM would) passes it, the stalled round proving
 * nothing and the next one everything.
 */
class SkewedClockContractControlsTests {

	private static final String AHEAD = "contenderWhoseClockIsAheadNeverGetsInWhileAHolderOnTheTrueClockRenews";

	@Test
	void storeThatComparesWallClocksLetsTheContenderIn() {
		Events events = run(WallClockExpiry.class, AHEAD);
		events.assertStatistics((stats) -> stats.started(1).failed(1));
		events.assertThatEvents()
			.haveExactly(1,
					finishedWithFailure(instanceOf(AssertionError.class),
							message((text) -> text.contains("while the holder's writes held the lock")
									&& text.contains("acquired after"))));
	}

	@Test
	void holderThatStallsPastItsTimeToLiveOnceIsNotABrokenStore() {
		StallingOnce.stalls.set(0);
		run(StallingOnce.class, AHEAD).assertStatistics((stats) -> stats.started(1).succeeded(1));
		assertThat(StallingOnce.stalls).as("renewals stalled past the time-to-live").hasValue(1);
	}

	@EngineTestKitOnly
	static class WallClockExpiry extends SkewedClockContractTests {

		private final Map<String, WallClockExpiryLockStore.Entry> server = WallClockExpiryLockStore.newServer();

		@Override
		protected LockStore createStore(Clock wallClock) {
			return new WallClockExpiryLockStore(this.server, wallClock);
		}

	}

	/**
	 * One in-memory store for every clock (it keeps time on the monotonic clock); the
	 * holder's first renewal is held up for longer than the time-to-live before it
	 * reaches the store, so that the contender takes the lock once it expired.
	 */
	@EngineTestKitOnly
	static class StallingOnce extends SkewedClockContractTests {

		static final AtomicInteger stalls = new AtomicInteger();

		private final InMemoryLockStore server = new InMemoryLockStore();

		@Override
		protected LockStore createStore(Clock wallClock) {
			return new LockStore() {

				@Override
				public AcquireReply tryAcquire(String key, String token, Duration ttl) {
					return StallingOnce.this.server.tryAcquire(key, token, ttl);
				}

				@Override
				public boolean release(String key, String token) {
					return StallingOnce.this.server.release(key, token);
				}

				@Override
				public boolean extend(String key, String token, Duration ttl) {
					if (stalls.compareAndSet(0, 1)) {
						sleep(TTL.plusMillis(500));
					}
					return StallingOnce.this.server.extend(key, token, ttl);
				}

				@Override
				public Duration timeToExpiry(String key) {
					return StallingOnce.this.server.timeToExpiry(key);
				}

			};
		}

	}

}
