package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.test.zookeeper.ZooKeeperServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Three stores on one ZooKeeper server, each on its own Curator client, standing for
 * three application servers whose wall clocks disagree: one 8 s ahead, one on time, one 8
 * s behind (their monotonic clocks untouched, as a stepped wall clock leaves them). No
 * wall clock may decide a lock's expiry: a renewing holder keeps every contender out, a
 * free key is taken by each of them, and a crashed holder's lock is taken over one
 * time-to-live after a contender first saw it, and not sooner.
 */
class ZooKeeperSkewedClockTests {

	private static final Duration TTL = Duration.ofSeconds(2);

	private static final Duration SKEW = Duration.ofSeconds(8);

	/** How long a contender keeps trying while the holder holds: longer than a TTL. */
	private static final Duration CONTENTION = TTL.multipliedBy(5).dividedBy(2);

	private static final Duration POLL = Duration.ofMillis(50);

	/** Slack for scheduling and round trips on a loaded machine. */
	private static final Duration SLACK = Duration.ofSeconds(1);

	@RegisterExtension
	static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

	private static final List<CuratorFramework> clients = new ArrayList<>();

	private static final Map<ZooKeeperLockStore, String> names = new IdentityHashMap<>();

	private static ZooKeeperLockStore ahead;

	private static ZooKeeperLockStore onTime;

	private static ZooKeeperLockStore behind;

	@BeforeAll
	static void createStores() {
		ahead = storeWithClockOffset("ahead", SKEW);
		onTime = storeWithClockOffset("on time", Duration.ZERO);
		behind = storeWithClockOffset("behind", SKEW.negated());
	}

	@AfterAll
	static void closeClients() {
		for (ZooKeeperLockStore store : new ZooKeeperLockStore[] { ahead, onTime, behind }) {
			if (store != null) {
				store.close();
			}
		}
		clients.forEach(CuratorFramework::close);
	}

	@Test
	void holderOnTheTrueClockKeepsAContenderWhoseClockIsAheadOut() throws Exception {
		assertRenewingHolderKeepsContenderOut(onTime, ahead);
	}

	@Test
	void holderWhoseClockIsBehindKeepsAContenderOnTheTrueClockOut() throws Exception {
		assertRenewingHolderKeepsContenderOut(behind, onTime);
	}

	@Test
	void freeKeyIsTakenByEveryStoreWhateverItsClock() {
		String shared = "skew:free-shared:" + UUID.randomUUID();
		for (ZooKeeperLockStore store : List.of(ahead, onTime, behind)) {
			String key = "skew:free:" + UUID.randomUUID();
			String token = UUID.randomUUID().toString();
			assertThat(store.tryAcquire(key, token, TTL).isAcquired()).as("a key never used, by %s", names.get(store))
				.isTrue();
			assertThat(store.release(key, token)).isTrue();
			// The same key in turn: a released lock is free at once for every store
			String sharedToken = UUID.randomUUID().toString();
			assertThat(store.tryAcquire(shared, sharedToken, TTL).isAcquired())
				.as("a released key, by %s", names.get(store))
				.isTrue();
			assertThat(store.release(shared, sharedToken)).isTrue();
		}
	}

	@Test
	void crashedHoldersLockIsTakenOverOneTimeToLiveAfterTheContendersFirstSight() throws Exception {
		// The holder's clock is ahead, the contender's behind: 16 s between them
		String key = "skew:crash:" + UUID.randomUUID();
		long written = System.nanoTime();
		AcquireReply held = ahead.tryAcquire(key, UUID.randomUUID().toString(), TTL);
		assertThat(held.isAcquired()).isTrue();
		// The holder crashes here: it never writes the node again. The contender first
		// looks half a TTL later
		Thread.sleep(TTL.dividedBy(2).toMillis());
		String token = UUID.randomUUID().toString();
		long firstSightStart = System.nanoTime();
		AcquireReply first = behind.tryAcquire(key, token, TTL);
		long firstSightEnd = System.nanoTime();
		assertThat(first.isAcquired()).as("taken at the contender's first sight").isFalse();
		long deadline = written + TTL.multipliedBy(2).plus(SLACK).plus(SKEW.multipliedBy(3)).toNanos();
		AcquireReply taken = first;
		long takenAt = 0;
		while (!taken.isAcquired()) {
			if (System.nanoTime() - deadline > 0) {
				fail("The crashed holder's lock was not taken over %s after its last write",
						Duration.ofNanos(System.nanoTime() - written));
			}
			Thread.sleep(POLL.toMillis());
			taken = behind.tryAcquire(key, token, TTL);
			takenAt = System.nanoTime();
		}
		assertThat(Duration.ofNanos(takenAt - firstSightStart))
			.as("time from the contender's first sight to its takeover")
			.isGreaterThanOrEqualTo(TTL);
		assertThat(Duration.ofNanos(takenAt - firstSightEnd))
			.as("time from the contender's first sight to its takeover")
			.isLessThanOrEqualTo(TTL.plus(SLACK));
		assertThat(Duration.ofNanos(takenAt - written)).as("time from the holder's last write to the takeover")
			.isLessThanOrEqualTo(TTL.multipliedBy(2).plus(SLACK));
		assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
		assertThat(behind.release(key, token)).isTrue();
	}

	/**
	 * The holder takes a key and renews it every third of its TTL, while the contender
	 * tries it every 50 ms for longer than a TTL: the contender never gets in, every
	 * renewal succeeds, and the holder's release at the end succeeds.
	 */
	private static void assertRenewingHolderKeepsContenderOut(ZooKeeperLockStore holder, ZooKeeperLockStore contender)
			throws Exception {
		String key = "skew:held:" + UUID.randomUUID();
		String holderToken = UUID.randomUUID().toString();
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		Queue<Boolean> renewals = new ConcurrentLinkedQueue<>();
		ScheduledExecutorService renewer = Executors.newSingleThreadScheduledExecutor();
		long period = TTL.dividedBy(3).toMillis();
		renewer.scheduleAtFixedRate(() -> renewals.add(holder.extend(key, holderToken, TTL)), period, period,
				TimeUnit.MILLISECONDS);
		int attempts = 0;
		try {
			long end = System.nanoTime() + CONTENTION.toNanos();
			while (System.nanoTime() - end < 0) {
				AcquireReply reply = contender.tryAcquire(key, UUID.randomUUID().toString(), TTL);
				attempts++;
				assertThat(reply.isAcquired())
					.as("%s got in while %s held the lock (attempt %d, after %d renewals)", names.get(contender),
							names.get(holder), attempts, renewals.size())
					.isFalse();
				assertThat(reply.holderRemainingTtl()).isLessThanOrEqualTo(TTL);
				Thread.sleep(POLL.toMillis());
			}
		}
		finally {
			renewer.shutdownNow();
			renewer.awaitTermination(10, TimeUnit.SECONDS);
		}
		assertThat(attempts).isGreaterThan(10);
		assertThat(renewals).as("the holder's renewals").hasSizeGreaterThanOrEqualTo(5).containsOnly(true);
		assertThat(holder.release(key, holderToken)).as("the holder's release").isTrue();
	}

	private static ZooKeeperLockStore storeWithClockOffset(String name, Duration offset) {
		CuratorFramework client = TestClients.start(zooKeeper.connectString());
		clients.add(client);
		ZooKeeperLockStore store = new ZooKeeperLockStore(client, ZooKeeperLockStore.DEFAULT_BASE_PATH,
				TestClients.TIMEOUT, Clock.offset(Clock.systemUTC(), offset));
		names.put(store, "the store whose clock is " + name);
		return store;
	}

}
