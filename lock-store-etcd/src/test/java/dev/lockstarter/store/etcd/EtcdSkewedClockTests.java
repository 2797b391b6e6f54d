package dev.lockstarter.store.etcd;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.test.etcd.EtcdServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three stores on one etcd server, each on its own client, with wall clocks 8 s ahead of
 * the true clock, on it, and 8 s behind: as three application servers whose clocks
 * disagree. No store lets its wall clock decide a lock's expiry, so a contender never
 * gets in while the holder holds and renews, whichever of them is ahead; a free key is
 * taken by each; a crashed holder's lock is taken over one time-to-live after a contender
 * first saw it, and a key abandoned long ago is deleted by etcd at the end of its lease.
 */
class EtcdSkewedClockTests {

	private static final Duration TTL = Duration.ofSeconds(2);

	private static final Duration SKEW = Duration.ofSeconds(8);

	/** How long a contender keeps trying while the holder renews: more than a TTL. */
	private static final Duration CONTENTION = TTL.multipliedBy(5).dividedBy(2);

	/** Scheduling and etcd round trips on a shared two-core machine. */
	private static final Duration SLACK = Duration.ofSeconds(1);

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	private static final List<Client> clients = new ArrayList<>();

	private static EtcdLockStore ahead;

	private static EtcdLockStore onTime;

	private static EtcdLockStore behind;

	@BeforeAll
	static void createStores() {
		ahead = store(Clock.offset(Clock.systemUTC(), SKEW));
		onTime = store(Clock.systemUTC());
		behind = store(Clock.offset(Clock.systemUTC(), SKEW.negated()));
	}

	@AfterAll
	static void closeStores() {
		for (EtcdLockStore store : new EtcdLockStore[] { ahead, onTime, behind }) {
			if (store != null) {
				store.close();
			}
		}
		clients.forEach(Client::close);
	}

	@Test
	void contenderWhoseClockIsAheadNeverGetsInWhileTheHolderOnTheTrueClockRenews() throws InterruptedException {
		assertContenderNeverGetsIn(onTime, ahead);
	}

	@Test
	void contenderOnTheTrueClockNeverGetsInWhileTheHolderWhoseClockIsBehindRenews() throws InterruptedException {
		assertContenderNeverGetsIn(behind, onTime);
	}

	@Test
	void freeKeyIsTakenByEveryStoreWhateverItsClock() {
		String shared = uniqueKey("free-shared");
		for (EtcdLockStore store : List.of(ahead, onTime, behind)) {
			String key = uniqueKey("free");
			String owner = uniqueToken();
			AcquireReply acquired = store.tryAcquire(key, owner, TTL);
			assertThat(acquired.isAcquired()).as("acquisition of a free key").isTrue();
			assertThat(store.timeToExpiry(key)).isPositive().isLessThanOrEqualTo(TTL);
			assertThat(store.extend(key, owner, TTL)).as("extension by the holder").isTrue();
			assertThat(store.release(key, owner)).as("release by the holder").isTrue();
			List<String> keys = List.of(uniqueKey("free-a"), uniqueKey("free-b"));
			assertThat(store.tryAcquireAll(keys, owner, TTL).isAcquired()).as("acquisition of free keys").isTrue();
			assertThat(store.releaseAll(keys, owner)).containsExactly(true, true);
			// A key released by another store is free at once
			String sharedOwner = uniqueToken();
			assertThat(store.tryAcquire(shared, sharedOwner, TTL).isAcquired()).as("acquisition of a released key")
				.isTrue();
			assertThat(store.release(shared, sharedOwner)).isTrue();
		}
	}

	@Test
	void crashedHoldersLockIsTakenOverOneTimeToLiveAfterTheContendersFirstSight() {
		String key = uniqueKey("crashed");
		String crashed = uniqueToken();
		long written = System.nanoTime();
		long crashedToken = behind.tryAcquire(key, crashed, TTL).fencingToken();
		assertThat(crashedToken).as("fencing token of the holder that then crashes").isPositive();
		// The holder stops renewing: a contender on another store, clock 16 s ahead of it
		long firstSight = System.nanoTime();
		String next = uniqueToken();
		AcquireReply taken = EtcdAwait.acquired(ahead, key, next, TTL, TTL.multipliedBy(2).plus(SLACK));
		Duration sinceFirstSight = Duration.ofNanos(System.nanoTime() - firstSight);
		assertThat(sinceFirstSight).as("time from the contender's first sight to its takeover")
			.isGreaterThanOrEqualTo(TTL);
		assertThat(Duration.ofNanos(System.nanoTime() - written)).as("time from the crashed holder's write")
			.isLessThanOrEqualTo(TTL.multipliedBy(2).plus(SLACK));
		assertThat(taken.fencingToken()).as("fencing token of the takeover").isGreaterThan(crashedToken);
		assertThat(behind.extend(key, crashed, TTL)).as("extension by the crashed holder").isFalse();
		assertThat(behind.release(key, crashed)).as("release by the crashed holder").isFalse();
		assertThat(ahead.release(key, next)).isTrue();
	}

	@Test
	void keyAbandonedLongAgoIsDeletedByEtcdAtItsLeasesEndAndTakenAtOnce() throws Exception {
		String key = uniqueKey("abandoned");
		Duration ttl = Duration.ofSeconds(1);
		long sent = System.nanoTime();
		assertThat(ahead.tryAcquire(key, uniqueToken(), ttl).isAcquired()).isTrue();
		// A lease bucket of 2 s, granted for 4 s: the key is gone within 4 s and some
		Client observer = clients.get(1);
		long deadline = sent + Duration.ofSeconds(8).toNanos();
		while (!observer.getKVClient().get(behind.lockKey(key)).get(5, TimeUnit.SECONDS).getKvs().isEmpty()) {
			assertThat(System.nanoTime() - deadline).as("nanoseconds past the lease's end").isNegative();
			Thread.sleep(50);
		}
		assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("time until etcd deleted the abandoned key")
			.isGreaterThanOrEqualTo(ttl.plus(EtcdLeases.MARGIN));
		assertThat(behind.tryAcquire(key, uniqueToken(), TTL).isAcquired())
			.as("first acquisition by a store that never saw the key")
			.isTrue();
	}

	/**
	 * The holder takes a key and renews it every third of its time-to-live on a thread of
	 * its own; the contender tries it (alone, with a free key, and reading its time to
	 * expiry) for more than two time-to-lives and must never get in.
	 */
	private static void assertContenderNeverGetsIn(EtcdLockStore holder, EtcdLockStore contender)
			throws InterruptedException {
		String key = uniqueKey("held");
		String owner = uniqueToken();
		assertThat(holder.tryAcquire(key, owner, TTL).isAcquired()).as("acquisition by the holder").isTrue();
		long start = System.nanoTime();
		AtomicInteger renewals = new AtomicInteger();
		List<String> failedRenewals = new CopyOnWriteArrayList<>();
		ExecutorService renewer = Executors.newSingleThreadExecutor();
		renewer.execute(() -> {
			while (!Thread.currentThread().isInterrupted()) {
				try {
					Thread.sleep(TTL.dividedBy(3).toMillis());
					if (holder.extend(key, owner, TTL)) {
						renewals.incrementAndGet();
					}
					else {
						failedRenewals.add("refused at +" + elapsedMillis(start) + " ms");
					}
				}
				catch (InterruptedException ex) {
					return;
				}
				catch (RuntimeException ex) {
					failedRenewals.add(ex + " at +" + elapsedMillis(start) + " ms");
				}
			}
		});
		List<String> intrusions = new ArrayList<>();
		int attempts = 0;
		try {
			long end = start + CONTENTION.toNanos();
			while (System.nanoTime() - end < 0 && intrusions.isEmpty()) {
				attempts++;
				AcquireReply single = contender.tryAcquire(key, uniqueToken(), TTL);
				if (single.isAcquired()) {
					intrusions.add("acquired at +" + elapsedMillis(start) + " ms");
				}
				else if (single.holderRemainingTtl().isNegative() || single.holderRemainingTtl().compareTo(TTL) > 0) {
					intrusions.add("remaining time-to-live " + single.holderRemainingTtl() + " at +"
							+ elapsedMillis(start) + " ms");
				}
				MultiKeyAcquireReply multi = contender.tryAcquireAll(List.of(uniqueKey("other"), key), uniqueToken(),
						TTL);
				if (multi.isAcquired()) {
					intrusions.add("acquired with another key at +" + elapsedMillis(start) + " ms");
				}
				if (contender.timeToExpiry(key).isZero()) {
					intrusions.add("time to expiry zero at +" + elapsedMillis(start) + " ms");
				}
				Thread.sleep(50);
			}
		}
		finally {
			renewer.shutdownNow();
			assertThat(renewer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(intrusions).as("contender's intrusions while the holder renewed (%d attempts)", attempts).isEmpty();
		assertThat(failedRenewals).as("holder's failed renewals").isEmpty();
		assertThat(renewals.get()).as("holder's renewals").isGreaterThanOrEqualTo(3);
		assertThat(holder.release(key, owner)).as("release by the holder").isTrue();
		assertThat(contender.tryAcquire(key, uniqueToken(), TTL).isAcquired()).as("contender after the release")
			.isTrue();
	}

	private static EtcdLockStore store(Clock clock) {
		Client client = EtcdTestClients.client(List.of(etcd.endpoint()));
		clients.add(client);
		return new EtcdLockStore(client, EtcdLockStore.DEFAULT_PREFIX, EtcdLockStore.DEFAULT_RESULTS_PREFIX,
				EtcdTestClients.TIMEOUT, clock);
	}

	private static long elapsedMillis(long start) {
		return Duration.ofNanos(System.nanoTime() - start).toMillis();
	}

	private static String uniqueKey(String name) {
		return "skewed:" + name + ":" + UUID.randomUUID();
	}

	private static String uniqueToken() {
		return UUID.randomUUID().toString();
	}

}
