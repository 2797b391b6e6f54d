package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.test.clock.ManualClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every pair of the ZooKeeper store's operations that can meet on one lock node, each
 * driven into its racy order, at an ordinary data version and at the end of ZooKeeper's
 * 32-bit version range: {@code Integer.MAX_VALUE} (the next write wraps to
 * {@code Integer.MIN_VALUE}), {@code -2} (the next write would leave {@code -1}) and
 * {@code -1}, which ZooKeeper reads, in a write's condition, as "any version". The node's
 * version is set in the data tree of a real ZooKeeper server run in the test JVM
 * ({@link InJvmZooKeeper}); reaching it by writes would take some 2³¹ of them.
 * <p>
 * A store counts expiry on a {@link ManualClock} of its own, which a test moves by hand
 * and which runs the other operation at a chosen reading: the store reads its clock
 * between reading a node and writing it (when it judges the holder's record, when it
 * checks its own lock's time-to-live, when it takes the time it sends a write). Whatever
 * the version, the write whose read predates the other operation must fail, and no write
 * may leave a lock node at {@code -1}.
 */
class ZooKeeperInterleavingTests {

	private static final String BASE_PATH = "/interleavings";

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final InJvmZooKeeper zookeeper = new InJvmZooKeeper();

	private static CuratorFramework client;

	private static CuratorFramework otherClient;

	@BeforeAll
	static void startClients() {
		client = TestClients.start(zookeeper.connectString());
		otherClient = TestClients.start(zookeeper.connectString());
		// The parents of the nodes exist from here on, so that the stores' first clock
		// reading of an acquisition is the one of its create
		ZooKeeperLockStore store = storeOn(client, ManualClock.start());
		String token = token();
		assertThat(store.tryAcquire("parents", token, TTL).isAcquired()).isTrue();
		assertThat(store.release("parents", token)).isTrue();
	}

	@AfterAll
	static void closeClients() {
		if (client != null) {
			client.close();
		}
		if (otherClient != null) {
			otherClient.close();
		}
	}

	@ParameterizedTest(name = "a held node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void takeoverBetweenAContendersReadAndItsWriteKeepsTheContenderOut(int version) {
		String key = key("takeover-takeover");
		assertThat(storeOn(client, ManualClock.start()).tryAcquire(key, token(), TTL).isAcquired()).isTrue();
		zookeeper.setVersion(lockPath(key), version);
		ManualClock clock = ManualClock.start();
		ZooKeeperLockStore other = storeOn(otherClient, clock);
		String otherToken = token();
		List<AcquireReply> takeovers = new ArrayList<>();
		// The contender's second reading judges the record it has just read: the other
		// contender takes the lock over there, before the contender writes
		ZooKeeperLockStore contender = storeOn(client,
				clock.hookedAt(2, () -> takeovers.add(other.tryAcquire(key, otherToken, TTL))));
		assertThat(other.tryAcquire(key, token(), TTL).isAcquired()).as("the other's first sight").isFalse();
		assertThat(contender.tryAcquire(key, token(), TTL).isAcquired()).as("the contender's first sight").isFalse();
		clock.advance(TTL.plusSeconds(1));
		AcquireReply contended = contender.tryAcquire(key, token(), TTL);
		assertThat(takeovers).as("the other contender's takeover").singleElement().matches(AcquireReply::isAcquired);
		assertThat(contended.isAcquired()).as("the contender, whose read predates the other's takeover").isFalse();
		assertNotAtMinusOne(key);
		assertThat(other.release(key, otherToken)).as("still held by the other contender").isTrue();
	}

	@ParameterizedTest(name = "a held node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void renewalBetweenAContendersReadAndItsTakeoverKeepsTheContenderOut(int version) {
		String key = key("renewal-before-takeover");
		String holderToken = token();
		ZooKeeperLockStore holder = storeOn(client, ManualClock.start());
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		zookeeper.setVersion(lockPath(key), version);
		List<Boolean> renewals = new ArrayList<>();
		ManualClock clock = ManualClock.start();
		ZooKeeperLockStore contender = storeOn(otherClient,
				clock.hookedAt(2, () -> renewals.add(holder.extend(key, holderToken, TTL))));
		assertThat(contender.tryAcquire(key, token(), TTL).isAcquired()).as("first sight").isFalse();
		clock.advance(TTL.plusSeconds(1));
		AcquireReply contended = contender.tryAcquire(key, token(), TTL);
		assertThat(renewals).as("the holder's renewal").containsExactly(true);
		assertThat(contended.isAcquired()).as("the contender, whose read predates the renewal").isFalse();
		assertNotAtMinusOne(key);
		assertThat(holder.release(key, holderToken)).as("still held by the holder").isTrue();
	}

	@ParameterizedTest(name = "a held node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void takeoverBetweenAHoldersReadAndItsRenewalFailsTheRenewal(int version) {
		String key = key("takeover-before-renewal");
		String holderToken = token();
		assertThat(storeOn(client, ManualClock.start()).tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		zookeeper.setVersion(lockPath(key), version);
		ManualClock contenderClock = ManualClock.start();
		ZooKeeperLockStore contender = storeOn(otherClient, contenderClock);
		String contenderToken = token();
		assertThat(contender.tryAcquire(key, contenderToken, TTL).isAcquired()).as("first sight").isFalse();
		contenderClock.advance(TTL.plusSeconds(1));
		List<AcquireReply> takeovers = new ArrayList<>();
		// A store that holds no record of its own writes of the lock first reads its
		// clock when it sends the renewal, after reading the node: the contender,
		// which has seen the lock unchanged for longer than its time-to-live, takes
		// it over there
		ZooKeeperLockStore renewer = storeOn(client,
				ManualClock.start().hookedAt(1, () -> takeovers.add(contender.tryAcquire(key, contenderToken, TTL))));
		boolean renewed = renewer.extend(key, holderToken, TTL);
		assertThat(takeovers).as("the contender's takeover").singleElement().matches(AcquireReply::isAcquired);
		assertThat(renewed).as("the renewal, whose read predates the takeover").isFalse();
		assertNotAtMinusOne(key);
		assertThat(contender.release(key, contenderToken)).as("still held by the contender").isTrue();
	}

	@ParameterizedTest(name = "a held node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void releaseAndNewAcquisitionBetweenAContendersReadAndItsWriteKeepTheContenderOut(int version) {
		String key = key("release-before-takeover");
		String ownerToken = token();
		ZooKeeperLockStore owner = storeOn(client, ManualClock.start());
		assertThat(owner.tryAcquire(key, ownerToken, TTL).isAcquired()).isTrue();
		zookeeper.setVersion(lockPath(key), version);
		String thirdToken = token();
		List<Boolean> released = new ArrayList<>();
		List<AcquireReply> thirds = new ArrayList<>();
		ManualClock clock = ManualClock.start();
		ZooKeeperLockStore contender = storeOn(otherClient, clock.hookedAt(2, () -> {
			released.add(owner.release(key, ownerToken));
			thirds.add(owner.tryAcquire(key, thirdToken, TTL));
		}));
		assertThat(contender.tryAcquire(key, token(), TTL).isAcquired()).as("first sight").isFalse();
		clock.advance(TTL.plusSeconds(1));
		AcquireReply contended = contender.tryAcquire(key, token(), TTL);
		assertThat(released).as("the owner's release").containsExactly(true);
		assertThat(thirds).as("the third owner's acquisition").singleElement().matches(AcquireReply::isAcquired);
		assertThat(contended.isAcquired()).as("the contender, whose read predates the release").isFalse();
		assertNotAtMinusOne(key);
		assertThat(owner.release(key, thirdToken)).as("still held by the third owner").isTrue();
	}

	@ParameterizedTest(name = "a free node at version {0} when the owner takes it")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -3, -2, -1 })
	void releaseAtTheVersionOfItsOwnWriteLeavesAContendersTakeoverAlone(int version) {
		String key = key("release-after-takeover");
		ZooKeeperLockStore owner = storeOn(client, ManualClock.start());
		String earlier = token();
		assertThat(owner.tryAcquire(key, earlier, TTL).isAcquired()).isTrue();
		assertThat(owner.release(key, earlier)).isTrue();
		zookeeper.setVersion(lockPath(key), version);
		// The owner takes the free node; the store remembers the version its write left
		// and later releases at that version without reading the node first
		String ownerToken = token();
		assertThat(owner.tryAcquire(key, ownerToken, TTL).isAcquired()).isTrue();
		ManualClock otherClock = ManualClock.start();
		ZooKeeperLockStore other = storeOn(otherClient, otherClock);
		String otherToken = token();
		assertThat(other.tryAcquire(key, otherToken, TTL).isAcquired()).as("first sight").isFalse();
		otherClock.advance(TTL.plusSeconds(1));
		assertThat(other.tryAcquire(key, otherToken, TTL).isAcquired()).as("the other's takeover").isTrue();
		// The owner's clock says its lock still runs
		assertThat(owner.release(key, ownerToken)).as("the overtaken owner's release").isFalse();
		assertNotAtMinusOne(key);
		assertThat(other.release(key, otherToken)).as("still held by the other").isTrue();
	}

	@ParameterizedTest(name = "a held node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void takeoverBetweenAHoldersReadAndItsResultKeepsTheResultOut(int version) {
		resultAfterATakeover(version, false);
	}

	@ParameterizedTest(name = "a held node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void takeoverBetweenAHoldersReadAndItsReleaseKeepingAResultFailsTheRelease(int version) {
		resultAfterATakeover(version, true);
	}

	@ParameterizedTest(name = "a result node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void emptyingAnExpiredResultLeavesAResultKeptMeanwhileAlone(int version) {
		String key = key("result-emptied");
		String holderToken = token();
		ZooKeeperLockStore holder = storeOn(client, ManualClock.start());
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		assertThat(holder.putResult(key, holderToken, new byte[] { 1 }, TTL)).isTrue();
		zookeeper.setVersion(resultPath(key), version);
		List<Boolean> kept = new ArrayList<>();
		// A reader whose wall clock is past the first result's end reads the result
		// node, then its clock: the holder keeps a second result there, before the
		// reader empties the expired one
		Clock readerClock = new HookedClock(Instant.now().plus(TTL.multipliedBy(2)),
				() -> kept.add(holder.putResult(key, holderToken, new byte[] { 2 }, TTL)));
		ZooKeeperLockStore reader = new ZooKeeperLockStore(otherClient, BASE_PATH, TestClients.TIMEOUT, readerClock,
				ManualClock.start().expiry());
		assertThat(reader.getResult(key)).as("the first result, expired on the reader's clock").isNull();
		assertThat(kept).as("the second result kept").containsExactly(true);
		assertThat(holder.getResult(key)).as("the second result, read by the holder").containsExactly(2);
		assertThat(holder.release(key, holderToken)).isTrue();
	}

	@ParameterizedTest(name = "a free node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void severalKeysAreAcquiredWhateverTheVersionOfAFreeNode(int version) {
		String used = key("multi-free");
		String unused = key("multi-new");
		ZooKeeperLockStore store = storeOn(client, ManualClock.start());
		String earlier = token();
		assertThat(store.tryAcquire(used, earlier, TTL).isAcquired()).isTrue();
		assertThat(store.release(used, earlier)).isTrue();
		zookeeper.setVersion(lockPath(used), version);
		String owner = token();
		assertThat(store.tryAcquireAll(List.of(used, unused), owner, TTL).isAcquired()).as("both keys").isTrue();
		assertNotAtMinusOne(used);
		assertThat(store.releaseAll(List.of(used, unused), owner)).containsExactly(true, true);
	}

	@ParameterizedTest(name = "a held node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -2, -1 })
	void takeoverBetweenAMultiKeyAcquisitionsReadAndItsWriteKeepsItOut(int version) {
		String held = key("multi-held");
		String unused = key("multi-new");
		assertThat(storeOn(client, ManualClock.start()).tryAcquire(held, token(), TTL).isAcquired()).isTrue();
		zookeeper.setVersion(lockPath(held), version);
		ManualClock clock = ManualClock.start();
		ZooKeeperLockStore other = storeOn(otherClient, clock);
		String otherToken = token();
		List<AcquireReply> takeovers = new ArrayList<>();
		// Each attempt reads the clock when it sends its multi (readings 1 and 3), then
		// judges the held node it read (readings 2 and 4): the other contender takes the
		// lock over at the second judgement, before the next multi
		ZooKeeperLockStore contender = storeOn(client,
				clock.hookedAt(4, () -> takeovers.add(other.tryAcquire(held, otherToken, TTL))));
		assertThat(other.tryAcquire(held, token(), TTL).isAcquired()).as("the other's first sight").isFalse();
		assertThat(contender.tryAcquireAll(List.of(held, unused), token(), TTL).isAcquired())
			.as("the contender's first sight")
			.isFalse();
		clock.advance(TTL.plusSeconds(1));
		boolean acquired = contender.tryAcquireAll(List.of(held, unused), token(), TTL).isAcquired();
		assertThat(takeovers).as("the other contender's takeover").singleElement().matches(AcquireReply::isAcquired);
		assertThat(acquired).as("the keys, whose read predates the takeover").isFalse();
		assertThat(contender.timeToExpiry(unused)).as("nothing taken").isZero();
		assertNotAtMinusOne(held);
		assertThat(other.release(held, otherToken)).as("still held by the other contender").isTrue();
	}

	@ParameterizedTest(name = "a node at version {0}")
	@ValueSource(ints = { 7, Integer.MAX_VALUE, -3, -2, -1 })
	void everyWriteLeavesTheNodeAtAVersionTheNextWriteCanBeConditionedOn(int version) throws Exception {
		String key = key("next-version");
		String path = lockPath(key);
		ZooKeeperLockStore store = storeOn(client, ManualClock.start());
		String earlier = token();
		assertThat(store.tryAcquire(key, earlier, TTL).isAcquired()).isTrue();
		assertThat(store.release(key, earlier)).isTrue();
		int next = switch (version) {
			case Integer.MAX_VALUE -> Integer.MIN_VALUE;
			case -2 -> 1;
			case -1 -> 0;
			default -> version + 1;
		};
		zookeeper.setVersion(path, version);
		String owner = token();
		AcquireReply acquired = store.tryAcquire(key, owner, TTL);
		assertThat(acquired.isAcquired()).isTrue();
		Stat stat = client.checkExists().forPath(path);
		assertThat(stat.getVersion()).as("the version after the acquisition").isEqualTo(next);
		assertThat(acquired.fencingToken()).as("the fencing token: the zxid of the acquiring write")
			.isEqualTo(stat.getMzxid());
		zookeeper.setVersion(path, version);
		assertThat(store.extend(key, owner, TTL)).isTrue();
		assertThat(zookeeper.version(path)).as("the version after the renewal").isEqualTo(next);
		zookeeper.setVersion(path, version);
		assertThat(store.release(key, owner)).isTrue();
		assertThat(zookeeper.version(path)).as("the version after the release").isEqualTo(next);
		assertThat(client.getData().forPath(path)).as("free").isEqualTo(NodeData.free(owner));
	}

	@ParameterizedTest(name = "a held node at version {0}")
	@ValueSource(ints = { 7, -2, -1 })
	void resultsAreKeptWhateverTheVersionOfTheLockNode(int version) {
		String key = key("result-version");
		String owner = token();
		ZooKeeperLockStore store = storeOn(client, ManualClock.start());
		assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		zookeeper.setVersion(lockPath(key), version);
		assertThat(store.putResult(key, owner, new byte[] { 1 }, TTL)).isTrue();
		assertThat(store.getResult(key)).containsExactly(1);
		zookeeper.setVersion(lockPath(key), version);
		assertThat(store.releaseKeepingResult(key, owner, new byte[] { 2 }, TTL)).isTrue();
		assertThat(store.getResult(key)).containsExactly(2);
		assertThat(store.timeToExpiry(key)).as("released").isZero();
		assertNotAtMinusOne(key);
	}

	@Test
	void releaseAtTheVersionOfItsOwnWriteRestartsANodeThatWriteLeftAtMinusTwo() throws Exception {
		String key = key("own-write-restart");
		String path = lockPath(key);
		ZooKeeperLockStore store = storeOn(client, ManualClock.start());
		String earlier = token();
		assertThat(store.tryAcquire(key, earlier, TTL).isAcquired()).isTrue();
		assertThat(store.release(key, earlier)).isTrue();
		long czxid = client.checkExists().forPath(path).getCzxid();
		zookeeper.setVersion(path, -3);
		String owner = token();
		assertThat(store.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		assertThat(zookeeper.version(path)).as("the version the owner's write left").isEqualTo(-2);
		assertThat(store.release(key, owner)).isTrue();
		Stat released = client.checkExists().forPath(path);
		assertThat(released.getVersion()).as("the version after the release").isEqualTo(1);
		assertThat(released.getCzxid()).as("a node created again").isGreaterThan(czxid);
		assertThat(client.getData().forPath(path)).as("free").isEqualTo(NodeData.free(owner));
	}

	private void resultAfterATakeover(int version, boolean release) {
		String key = key(release ? "release-keeping-result-after-takeover" : "result-after-takeover");
		String holderToken = token();
		ManualClock contenderClock = ManualClock.start();
		ZooKeeperLockStore contender = storeOn(otherClient, contenderClock);
		String contenderToken = token();
		List<AcquireReply> takeovers = new ArrayList<>();
		// The holder's store reads its clock when it sends the create that acquires, then
		// when it checks, after reading the lock node, that its lock has not outlived its
		// time-to-live: the contender takes the lock over there
		ZooKeeperLockStore holder = storeOn(client,
				ManualClock.start().hookedAt(2, () -> takeovers.add(contender.tryAcquire(key, contenderToken, TTL))));
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		zookeeper.setVersion(lockPath(key), version);
		assertThat(contender.tryAcquire(key, contenderToken, TTL).isAcquired()).as("first sight").isFalse();
		contenderClock.advance(TTL.plusSeconds(1));
		byte[] result = { 42 };
		boolean kept = release ? holder.releaseKeepingResult(key, holderToken, result, TTL)
				: holder.putResult(key, holderToken, result, TTL);
		assertThat(takeovers).as("the contender's takeover").singleElement().matches(AcquireReply::isAcquired);
		assertThat(kept).as("the overtaken holder's result").isFalse();
		assertThat(contender.getResult(key)).as("no result of the overtaken holder").isNull();
		assertNotAtMinusOne(key);
		assertThat(contender.release(key, contenderToken)).as("still held by the contender").isTrue();
	}

	private static void assertNotAtMinusOne(String key) {
		assertThat(zookeeper.version(lockPath(key)))
			.as("the lock node's version: -1 would make the next write unconditional")
			.isNotEqualTo(-1);
	}

	private static ZooKeeperLockStore storeOn(CuratorFramework client, ManualClock clock) {
		return new ZooKeeperLockStore(client, BASE_PATH, TestClients.TIMEOUT, Clock.systemUTC(), clock.expiry());
	}

	private static String lockPath(String key) {
		return BASE_PATH + "/locks/" + LockNodes.name(key);
	}

	private static String resultPath(String key) {
		return BASE_PATH + "/results/" + LockNodes.name(key);
	}

	private static String key(String name) {
		return name + "-" + UUID.randomUUID();
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

	/**
	 * A fixed wall clock that runs an action at its first reading, before answering it.
	 */
	private static final class HookedClock extends Clock {

		private final Instant instant;

		private final Runnable hook;

		private final AtomicInteger readings = new AtomicInteger();

		HookedClock(Instant instant, Runnable hook) {
			this.instant = instant;
			this.hook = hook;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			if (this.readings.incrementAndGet() == 1) {
				this.hook.run();
			}
			return this.instant;
		}

	}

}
