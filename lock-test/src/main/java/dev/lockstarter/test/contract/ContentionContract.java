package dev.lockstarter.test.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Owners that contend for the same keys: one winner among simultaneous acquirers, never
 * two holders at once, and fencing tokens that increase from one owner to the next.
 */
interface ContentionContract extends StoreContract {

	@Test
	default void onlyOneOfManySimultaneousAcquirersWins() throws Exception {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		int contenders = 8;
		ExecutorService executor = Executors.newFixedThreadPool(contenders);
		try {
			for (int round = 0; round < 20; round++) {
				String key = fixture.uniqueKey("simultaneous");
				CountDownLatch go = new CountDownLatch(1);
				List<Future<Boolean>> attempts = new ArrayList<>();
				for (int i = 0; i < contenders; i++) {
					attempts.add(executor.submit(() -> {
						go.await();
						return store.tryAcquire(key, fixture.uniqueToken(), LONG_TTL).isAcquired();
					}));
				}
				go.countDown();
				int winners = 0;
				for (Future<Boolean> attempt : attempts) {
					winners += attempt.get(10, TimeUnit.SECONDS) ? 1 : 0;
				}
				assertThat(winners).as("owners of %s after %d simultaneous attempts", key, contenders).isOne();
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	default void concurrentOwnersNeverHoldTheSameKeyAtOnce() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		List<String> keys = List.of(fixture.uniqueKey("exclusion-1"), fixture.uniqueKey("exclusion-2"),
				fixture.uniqueKey("exclusion-3"));
		ExclusionChecker.Result result = fixture.exclusionChecker().check(keys, (key) -> {
			String token = fixture.uniqueToken();
			return store.tryAcquire(key, token, LONG_TTL).isAcquired() ? () -> store.release(key, token) : null;
		});
		assertThat(result.failures()).as(result.toString()).isEmpty();
		assertThat(result.violations()).as(result.toString()).isZero();
		assertThat(result.overlaps()).as(result.toString()).isZero();
		assertThat(result.acquisitions()).as("acquisitions in " + result)
			.isGreaterThanOrEqualTo(result.attempts() / 10);
		assertThat(result.rejections()).as("rejections (contention) in " + result).isPositive();
	}

	/**
	 * Owners that contend for one key, each writing to a fenced resource while it holds
	 * the lock: the resource accepts a write only with a token greater than every token
	 * it accepted before, as fencing requires, so each owner's token must be greater than
	 * its predecessors'. A store that draws a token before it takes the key can hand a
	 * lower token to an owner that follows a higher one. A store that declares no fencing
	 * tokens must answer none.
	 */
	@Test
	default void ownersOfOneKeyGetIncreasingFencingTokens() throws Exception {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("fenced");
		int owners = 3;
		int acquisitionsEach = 20;
		Object resource = new Object();
		long[] accepted = new long[1];
		List<String> rejected = new ArrayList<>();
		List<Long> tokens = new ArrayList<>();
		ExecutorService executor = Executors.newFixedThreadPool(owners);
		try {
			List<Future<?>> runs = new ArrayList<>();
			for (int i = 0; i < owners; i++) {
				runs.add(executor.submit(() -> {
					long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
					int acquired = 0;
					while (acquired < acquisitionsEach && System.nanoTime() - deadline < 0) {
						String token = fixture.uniqueToken();
						AcquireReply result = DeclaredFencing.tryAcquireFenced(store, key, token, LONG_TTL);
						if (!result.isAcquired()) {
							Thread.onSpinWait();
							continue;
						}
						acquired++;
						long fence = result.fencingToken();
						synchronized (resource) {
							tokens.add(fence);
							if (fence <= accepted[0]) {
								rejected.add(fence + " after " + accepted[0]);
							}
							accepted[0] = Math.max(accepted[0], fence);
						}
						assertThat(store.release(key, token)).as("release by the owner").isTrue();
					}
					return null;
				}));
			}
			for (Future<?> run : runs) {
				run.get(60, TimeUnit.SECONDS);
			}
			synchronized (resource) {
				assertThat(tokens).as("acquisitions by %d owners", owners).isNotEmpty();
				if (fixture.fencing().check("fencing tokens of contending owners of one key", tokens)) {
					assertThat(rejected).as("writes a fenced resource rejected from the lock's owner").isEmpty();
				}
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

}
