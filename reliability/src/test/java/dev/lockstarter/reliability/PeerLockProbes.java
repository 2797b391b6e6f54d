package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the tests of the peers' {@link WorkerLock}s ask of every lock: it excludes, it
 * says that a short section was held, and it says when a section outlived it.
 */
final class PeerLockProbes {

	/** The longest a probe waits for a latch or another thread. */
	static final long LATCH_SECONDS = 15;

	private PeerLockProbes() {
	}

	/**
	 * While the first lock is inside its section on a key, the second's attempt waits for
	 * twice its time-to-live, then gives up without running its section (and so does
	 * another thread of the first's client, if asked); the first's lock says it was held
	 * all along; once it is released, the second runs, and says it held the lock.
	 * @param first the lock that holds the key; its section must not outlive it
	 * @param second another client's lock
	 * @param key the key
	 * @param secondTtl the second's time-to-live, which sets its wait
	 * @param sameClientToo whether to check another thread of the first's client too,
	 * which waits twice the first's time-to-live
	 * @throws Exception if a probe failed to run
	 */
	static void assertExclusion(WorkerLock first, WorkerLock second, String key, Duration secondTtl,
			boolean sameClientToo) throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch othersDone = new CountDownLatch(1);
		AtomicBoolean held = new AtomicBoolean();
		ExecutorService executor = Executors.newFixedThreadPool(2);
		try {
			Future<Boolean> firstRun = executor.submit(() -> first.runLocked(key, (holding) -> {
				entered.countDown();
				othersDone.await(LATCH_SECONDS, TimeUnit.SECONDS);
				held.set(holding.isHeld());
			}));
			assertThat(entered.await(LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
			AtomicInteger othersRuns = new AtomicInteger();
			Future<Boolean> sameClient = sameClientToo
					? executor.submit(() -> first.runLocked(key, (holding) -> othersRuns.incrementAndGet())) : null;
			long started = System.nanoTime();
			boolean secondRan = second.runLocked(key, (holding) -> othersRuns.incrementAndGet());
			Duration waited = Duration.ofNanos(System.nanoTime() - started);
			if (sameClient != null) {
				assertThat(sameClient.get(LATCH_SECONDS, TimeUnit.SECONDS)).as("another thread of the same client")
					.isFalse();
			}
			othersDone.countDown();
			assertThat(secondRan).as("another client").isFalse();
			assertThat(othersRuns).hasValue(0);
			// It waited twice its TTL (up to a clock's tick) before giving up
			assertThat(waited).isGreaterThanOrEqualTo(secondTtl.multipliedBy(2).minusMillis(20));
			assertThat(firstRun.get(LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
			assertThat(held).as("the first held its lock all along").isTrue();
			assertThat(runOnce(second, key, Duration.ZERO).held()).as("the second, once released").isTrue();
		}
		finally {
			othersDone.countDown();
			executor.shutdownNow();
		}
	}

	/**
	 * The first lock's section on a key outlives its time-to-live: the second takes the
	 * expired lock while the first is still inside, and the first's lock then says it was
	 * not held all along; its release does not throw.
	 * @param first the lock whose section outlives it
	 * @param second another client's lock
	 * @param key the key
	 * @throws Exception if a probe failed to run
	 */
	static void assertTakeover(WorkerLock first, WorkerLock second, String key) throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		CountDownLatch secondDone = new CountDownLatch(1);
		AtomicBoolean held = new AtomicBoolean(true);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		try {
			Future<Boolean> firstRun = executor.submit(() -> first.runLocked(key, (holding) -> {
				entered.countDown();
				secondDone.await(LATCH_SECONDS, TimeUnit.SECONDS);
				held.set(holding.isHeld());
			}));
			assertThat(entered.await(LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
			List<Boolean> secondHeld = new ArrayList<>();
			boolean secondRan = second.runLocked(key, (holding) -> secondHeld.add(holding.isHeld()));
			secondDone.countDown();
			assertThat(secondRan).isTrue();
			assertThat(secondHeld).containsExactly(true);
			assertThat(firstRun.get(LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
			assertThat(held).as("the first, taken over").isFalse();
		}
		finally {
			secondDone.countDown();
			executor.shutdownNow();
		}
	}

	/**
	 * Run one section that stays inside for a while, and say what it saw.
	 * @param lock the lock
	 * @param key the key
	 * @param inside how long the section stays inside
	 * @return what the section saw
	 * @throws InterruptedException if interrupted
	 */
	static Section runOnce(WorkerLock lock, String key, Duration inside) throws InterruptedException {
		long[] token = new long[1];
		boolean[] held = new boolean[1];
		boolean ran = lock.runLocked(key, (holding) -> {
			token[0] = holding.fencingToken();
			// Outliving the time-to-live is the point of a long section
			Thread.sleep(inside.toMillis());
			held[0] = holding.isHeld();
		});
		assertThat(ran).isTrue();
		return new Section(token[0], held[0]);
	}

	/**
	 * What a section saw.
	 *
	 * @param fencingToken its lock's fencing token
	 * @param held whether its lock said it was held all along
	 */
	record Section(long fencingToken, boolean held) {
	}

}
