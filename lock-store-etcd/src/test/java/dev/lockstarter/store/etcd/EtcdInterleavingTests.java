package dev.lockstarter.store.etcd;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.test.clock.ManualClock;
import dev.lockstarter.test.etcd.EtcdServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every pair of the etcd store's operations that can meet on one lock key, each driven
 * into its racy order on a real etcd server. A store counts expiry on a
 * {@link ManualClock} of its own, which a test moves by hand and which runs the other
 * operation at a chosen reading: between the transaction that read the key and the one
 * that writes it (an acquisition judges the holder's record, then takes the time it sends
 * the takeover), or between a holder's check of its own time-to-live and its transaction.
 */
class EtcdInterleavingTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	private static Client client;

	private static Client otherClient;

	@BeforeAll
	static void startClients() {
		client = EtcdTestClients.client(List.of(etcd.endpoint()));
		otherClient = EtcdTestClients.client(List.of(etcd.endpoint()));
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

	@Test
	void takeoverOfAKeyReleasedBetweenItsReadAndItsWriteTakesTheFreeKey() {
		String key = key("released-before-takeover");
		String holderToken = token();
		EtcdLockStore holder = storeOn(client, ManualClock.start());
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		List<Boolean> released = new ArrayList<>();
		ManualClock clock = ManualClock.start();
		// Each call reads the clock when it sends its first transaction (readings 1 and
		// 3), then judges the holder's record that the transaction read (readings 2 and
		// 4): the holder releases the lock at the second judgement, which finds the
		// record unchanged for its whole time-to-live, before the takeover is sent
		EtcdLockStore contender = storeOn(otherClient,
				clock.hookedAt(4, () -> released.add(holder.release(key, holderToken))));
		assertThat(contender.tryAcquire(key, token(), TTL).isAcquired()).as("first sight").isFalse();
		clock.advance(TTL.plusSeconds(1));
		String contenderToken = token();
		AcquireReply contended = contender.tryAcquire(key, contenderToken, TTL);
		assertThat(released).as("the holder's release").containsExactly(true);
		assertThat(contended.isAcquired()).as("the takeover of a key deleted since it was read").isTrue();
		assertThat(contender.release(key, contenderToken)).isTrue();
	}

	@Test
	void takeoverOfKeysOneOfWhichIsReleasedBetweenTheirReadAndTheirWriteTakesThemAll() {
		String held = key("multi-released-before-takeover");
		String unused = key("multi-new");
		String holderToken = token();
		EtcdLockStore holder = storeOn(client, ManualClock.start());
		assertThat(holder.tryAcquire(held, holderToken, TTL).isAcquired()).isTrue();
		List<Boolean> released = new ArrayList<>();
		ManualClock clock = ManualClock.start();
		EtcdLockStore contender = storeOn(otherClient,
				clock.hookedAt(4, () -> released.add(holder.release(held, holderToken))));
		assertThat(contender.tryAcquireAll(List.of(held, unused), token(), TTL).isAcquired()).as("first sight")
			.isFalse();
		clock.advance(TTL.plusSeconds(1));
		String contenderToken = token();
		boolean acquired = contender.tryAcquireAll(List.of(held, unused), contenderToken, TTL).isAcquired();
		assertThat(released).as("the holder's release").containsExactly(true);
		assertThat(acquired).as("the takeover of keys, one deleted since it was read").isTrue();
		assertThat(contender.releaseAll(List.of(held, unused), contenderToken)).containsExactly(true, true);
	}

	@Test
	void takeoverBetweenAContendersReadAndItsWriteKeepsTheContenderOut() {
		String key = key("takeover-takeover");
		assertThat(storeOn(client, ManualClock.start()).tryAcquire(key, token(), TTL).isAcquired()).isTrue();
		ManualClock clock = ManualClock.start();
		EtcdLockStore other = storeOn(otherClient, clock);
		String otherToken = token();
		List<AcquireReply> takeovers = new ArrayList<>();
		EtcdLockStore contender = storeOn(client,
				clock.hookedAt(4, () -> takeovers.add(other.tryAcquire(key, otherToken, TTL))));
		assertThat(other.tryAcquire(key, token(), TTL).isAcquired()).as("the other's first sight").isFalse();
		assertThat(contender.tryAcquire(key, token(), TTL).isAcquired()).as("the contender's first sight").isFalse();
		clock.advance(TTL.plusSeconds(1));
		AcquireReply contended = contender.tryAcquire(key, token(), TTL);
		assertThat(takeovers).as("the other contender's takeover").singleElement().matches(AcquireReply::isAcquired);
		assertThat(contended.isAcquired()).as("the contender, whose read predates the other's takeover").isFalse();
		assertThat(other.release(key, otherToken)).as("still held by the other contender").isTrue();
	}

	@Test
	void renewalBetweenAContendersReadAndItsTakeoverKeepsTheContenderOut() {
		String key = key("renewal-before-takeover");
		String holderToken = token();
		EtcdLockStore holder = storeOn(client, ManualClock.start());
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		List<Boolean> renewals = new ArrayList<>();
		ManualClock clock = ManualClock.start();
		EtcdLockStore contender = storeOn(otherClient,
				clock.hookedAt(4, () -> renewals.add(holder.extend(key, holderToken, TTL))));
		assertThat(contender.tryAcquire(key, token(), TTL).isAcquired()).as("first sight").isFalse();
		clock.advance(TTL.plusSeconds(1));
		AcquireReply contended = contender.tryAcquire(key, token(), TTL);
		assertThat(renewals).as("the holder's renewal").containsExactly(true);
		assertThat(contended.isAcquired()).as("the contender, whose read predates the renewal").isFalse();
		assertThat(holder.release(key, holderToken)).as("still held by the holder").isTrue();
	}

	@Test
	void releaseAndNewAcquisitionBetweenAContendersReadAndItsWriteKeepTheContenderOut() {
		String key = key("release-and-acquire-before-takeover");
		String ownerToken = token();
		EtcdLockStore owner = storeOn(client, ManualClock.start());
		assertThat(owner.tryAcquire(key, ownerToken, TTL).isAcquired()).isTrue();
		String thirdToken = token();
		List<Boolean> released = new ArrayList<>();
		List<AcquireReply> thirds = new ArrayList<>();
		ManualClock clock = ManualClock.start();
		EtcdLockStore contender = storeOn(otherClient, clock.hookedAt(4, () -> {
			released.add(owner.release(key, ownerToken));
			thirds.add(owner.tryAcquire(key, thirdToken, TTL));
		}));
		assertThat(contender.tryAcquire(key, token(), TTL).isAcquired()).as("first sight").isFalse();
		clock.advance(TTL.plusSeconds(1));
		AcquireReply contended = contender.tryAcquire(key, token(), TTL);
		assertThat(released).as("the owner's release").containsExactly(true);
		assertThat(thirds).as("the third owner's acquisition").singleElement().matches(AcquireReply::isAcquired);
		assertThat(contended.isAcquired()).as("the contender, whose read predates the release").isFalse();
		assertThat(owner.release(key, thirdToken)).as("still held by the third owner").isTrue();
	}

	@Test
	void takeoverBetweenAHoldersCheckAndItsRenewalFailsTheRenewal() {
		String key = key("takeover-before-renewal");
		String holderToken = token();
		ManualClock contenderClock = ManualClock.start();
		EtcdLockStore contender = storeOn(otherClient, contenderClock);
		String contenderToken = token();
		List<AcquireReply> takeovers = new ArrayList<>();
		// The holder reads its clock when it sends its acquisition (reading 1), then, to
		// renew, when it checks that its lock has not outlived its time-to-live (2) and
		// when it sends the renewal (3): the contender takes the lock over there
		EtcdLockStore holder = storeOn(client,
				ManualClock.start().hookedAt(3, () -> takeovers.add(contender.tryAcquire(key, contenderToken, TTL))));
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		assertThat(contender.tryAcquire(key, contenderToken, TTL).isAcquired()).as("first sight").isFalse();
		contenderClock.advance(TTL.plusSeconds(1));
		boolean renewed = holder.extend(key, holderToken, TTL);
		assertThat(takeovers).as("the contender's takeover").singleElement().matches(AcquireReply::isAcquired);
		assertThat(renewed).as("the overtaken holder's renewal").isFalse();
		assertThat(contender.release(key, contenderToken)).as("still held by the contender").isTrue();
	}

	@Test
	void takeoverBeforeAHoldersReleaseLeavesTheNewHolderAlone() {
		// The release is one transaction, conditioned on the holder's token, and judges
		// afterwards, from the record it deleted, whether the lock outlived its
		// time-to-live: there is no check before it for a takeover to come between
		String key = key("takeover-before-release");
		String holderToken = token();
		ManualClock contenderClock = ManualClock.start();
		EtcdLockStore contender = storeOn(otherClient, contenderClock);
		String contenderToken = token();
		EtcdLockStore holder = storeOn(client, ManualClock.start());
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		assertThat(contender.tryAcquire(key, contenderToken, TTL).isAcquired()).as("first sight").isFalse();
		contenderClock.advance(TTL.plusSeconds(1));
		assertThat(contender.tryAcquire(key, contenderToken, TTL).isAcquired()).as("the contender's takeover").isTrue();
		assertThat(holder.release(key, holderToken)).as("the overtaken holder's release").isFalse();
		assertThat(contender.release(key, contenderToken)).as("still held by the contender").isTrue();
	}

	@Test
	void takeoverBetweenAHoldersCheckAndItsResultKeepsTheResultOut() {
		resultAfterATakeover(false);
	}

	@Test
	void takeoverBetweenAHoldersCheckAndItsReleaseKeepingAResultFailsTheRelease() {
		resultAfterATakeover(true);
	}

	private void resultAfterATakeover(boolean release) {
		String key = key(release ? "release-keeping-result-after-takeover" : "result-after-takeover");
		String holderToken = token();
		ManualClock contenderClock = ManualClock.start();
		EtcdLockStore contender = storeOn(otherClient, contenderClock);
		String contenderToken = token();
		List<AcquireReply> takeovers = new ArrayList<>();
		// The holder reads its clock when it sends its acquisition (reading 1), then when
		// it checks that its lock has not outlived its time-to-live (2)
		EtcdLockStore holder = storeOn(client,
				ManualClock.start().hookedAt(2, () -> takeovers.add(contender.tryAcquire(key, contenderToken, TTL))));
		assertThat(holder.tryAcquire(key, holderToken, TTL).isAcquired()).isTrue();
		assertThat(contender.tryAcquire(key, contenderToken, TTL).isAcquired()).as("first sight").isFalse();
		contenderClock.advance(TTL.plusSeconds(1));
		byte[] result = { 42 };
		boolean kept = release ? holder.releaseKeepingResult(key, holderToken, result, TTL)
				: holder.putResult(key, holderToken, result, TTL);
		assertThat(takeovers).as("the contender's takeover").singleElement().matches(AcquireReply::isAcquired);
		assertThat(kept).as("the overtaken holder's result").isFalse();
		assertThat(contender.getResult(key)).as("no result of the overtaken holder").isNull();
		assertThat(contender.release(key, contenderToken)).as("still held by the contender").isTrue();
	}

	private static EtcdLockStore storeOn(Client client, ManualClock clock) {
		return new EtcdLockStore(client, EtcdLockStore.DEFAULT_PREFIX, EtcdLockStore.DEFAULT_RESULTS_PREFIX,
				EtcdTestClients.TIMEOUT, Clock.systemUTC(), clock.expiry());
	}

	private static String key(String name) {
		return name + "-" + UUID.randomUUID();
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

}
