package dev.lockstarter.store.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.LeaseOption;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.test.contract.ExclusionChecker;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.etcd.EtcdClusterExtension;
import dev.lockstarter.test.etcd.EtcdMember;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LockStoreContractTests} for {@link EtcdLockStore} on a real three-member etcd
 * cluster, the client given all three endpoints, and the etcd store's own promises: one
 * request per operation once a lease is granted, the value (token and time-to-live) and
 * lease of a lock key, fencing tokens from etcd's revision, and release notifications
 * from the watch.
 */
class EtcdLockStoreContractTests extends LockStoreContractTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final EtcdClusterExtension etcd = new EtcdClusterExtension();

	private static final AtomicInteger requests = new AtomicInteger();

	private static Client client;

	private static EtcdLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		client = EtcdTestClients.countingClient(etcd.endpoints(), EtcdTestClients.TIMEOUT, requests);
		sharedStore = new EtcdLockStore(client, EtcdTestClients.TIMEOUT);
	}

	@AfterAll
	static void closeClient() {
		if (sharedStore != null) {
			sharedStore.close();
		}
		if (client != null) {
			client.close();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@Override
	protected void restartServer() {
		etcd.server().members().forEach(EtcdMember::kill);
		etcd.server().heal();
	}

	@Override
	protected boolean locksSurviveServerRestart() {
		return true;
	}

	@Override
	protected ExclusionChecker exclusionChecker() {
		// Every write is a Raft round and an fsync on three members sharing two cores
		return new ExclusionChecker().threads(8).attemptsPerThread(50);
	}

	@Test
	void eachOperationIsOneRequestOnceALeaseIsGranted() {
		String key = uniqueKey("requests");
		String owner = uniqueToken();
		// Grants the lease of this time-to-live's bucket, if no test did before
		store().tryAcquire(uniqueKey("warm-up"), uniqueToken(), TTL);
		requests.set(0);
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		assertThat(requests.get()).as("requests to acquire").isOne();
		assertThat(store().tryAcquire(key, uniqueToken(), TTL).isAcquired()).isFalse();
		assertThat(requests.get()).as("requests to acquire, then to be rejected").isEqualTo(2);
		assertThat(store().extend(key, owner, TTL)).isTrue();
		assertThat(store().release(key, owner)).isTrue();
		assertThat(requests.get()).as("requests to acquire, be rejected, extend and release").isEqualTo(4);
	}

	@Test
	void lockKeyHoldsTokenAndTimeToLiveAndIsBoundToALeaseThatOutlivesTheLock() throws Exception {
		String key = uniqueKey("layout");
		String owner = uniqueToken();
		long fencingToken = store().tryAcquire(key, owner, TTL).fencingToken();
		KeyValue stored = client.getKVClient().get(sharedStore.lockKey(key)).get(5, TimeUnit.SECONDS).getKvs().get(0);
		assertThat(sharedStore.lockKey(key).toString(StandardCharsets.UTF_8))
			.isEqualTo(EtcdLockStore.DEFAULT_PREFIX + key);
		assertThat(EtcdValues.isOwnedBy(stored.getValue(), owner)).isTrue();
		assertThat(EtcdValues.owner(stored.getValue())).isEqualTo(owner);
		assertThat(EtcdValues.ttl(stored.getValue())).as("time-to-live written: a duration, not a point in time")
			.isEqualTo(TTL);
		assertThat(stored.getModRevision()).as("fencing token: the revision of the write that took the lock")
			.isEqualTo(fencingToken);
		assertThat(stored.getLease()).isNotZero();
		long leaseTtl = client.getLeaseClient()
			.timeToLive(stored.getLease(), LeaseOption.DEFAULT)
			.get(5, TimeUnit.SECONDS)
			.getTTL();
		assertThat(leaseTtl).as("seconds left of the lease").isGreaterThan(TTL.toSeconds());
		assertThat(store().release(key, owner)).isTrue();
		assertThat(client.getKVClient().get(sharedStore.lockKey(key)).get(5, TimeUnit.SECONDS).getKvs()).isEmpty();
	}

	@Test
	void fencingTokensStrictlyIncreaseAcrossOwnersAndALeaderKill() {
		String key = uniqueKey("fencing");
		String first = uniqueToken();
		long firstToken = store().tryAcquire(key, first, TTL).fencingToken();
		assertThat(firstToken).isPositive();
		assertThat(store().tryAcquire(key, uniqueToken(), TTL).fencingToken()).as("token of a rejected acquisition")
			.isZero();
		assertThat(store().release(key, first)).isTrue();
		String second = uniqueToken();
		long secondToken = store().tryAcquire(key, second, Duration.ofMillis(300)).fencingToken();
		assertThat(secondToken).as("token after a release").isGreaterThan(firstToken);
		EtcdMember leader = etcd.server().leader();
		leader.kill();
		etcd.server().awaitLeader(Duration.ofSeconds(10));
		long thirdToken = EtcdAwait.acquired(store(), key, uniqueToken(), TTL, Duration.ofSeconds(10)).fencingToken();
		assertThat(thirdToken).as("token after a leader kill and the takeover of the expired lock")
			.isGreaterThan(secondToken);
	}

	@Test
	void everyCallFailsWithinTheTimeoutWhileAMajorityIsPausedAndWorksAgainAfterwards() {
		Duration timeout = Duration.ofMillis(500);
		try (Client impatientClient = EtcdClients.client(timeout, etcd.endpoints().toArray(String[]::new));
				EtcdLockStore impatient = new EtcdLockStore(impatientClient, timeout)) {
			String key = uniqueKey("paused");
			String owner = uniqueToken();
			assertThat(impatient.tryAcquire(key, owner, TTL).isAcquired()).isTrue();
			EtcdMember leader = etcd.server().leader();
			EtcdMember follower = etcd.server()
				.members()
				.stream()
				.filter((member) -> member != leader)
				.findFirst()
				.get();
			leader.pause();
			follower.pause();
			List<TimedCall> calls;
			try {
				calls = List.of(
						TimedCall.of("acquire", () -> impatient.tryAcquire(uniqueKey("paused"), uniqueToken(), TTL)),
						TimedCall.of("extend", () -> impatient.extend(key, owner, TTL)),
						TimedCall.of("put a result", () -> impatient.putResult(key, owner, new byte[] { 1 }, TTL)),
						TimedCall.of("read the time to expiry", () -> impatient.timeToExpiry(key)),
						TimedCall.of("read the result", () -> impatient.getResult(key)),
						TimedCall.of("list the holders", () -> impatient.holders("", 10)),
						TimedCall.of("force-release", () -> impatient.forceRelease(uniqueKey("paused"))),
						TimedCall.of("release", () -> impatient.release(key, owner)));
			}
			finally {
				leader.resume();
				follower.resume();
			}
			for (TimedCall call : calls) {
				assertThat(call.failure()).as("failure to %s with a majority paused", call.operation()).isNotNull();
				assertThat(call.took()).as("time to %s", call.operation()).isLessThan(timeout.plusSeconds(1));
			}
			etcd.server().awaitLeader(Duration.ofSeconds(10));
			String after = uniqueKey("resumed");
			String afterOwner = uniqueToken();
			EtcdAwait.acquired(impatient, after, afterOwner, TTL, Duration.ofSeconds(10));
			assertThat(impatient.extend(after, afterOwner, TTL)).isTrue();
			assertThat(impatient.putResult(after, afterOwner, new byte[] { 2 }, TTL)).isTrue();
			assertThat(impatient.getResult(after)).containsExactly(2);
			assertThat(impatient.timeToExpiry(after)).isPositive();
			assertThat(impatient.release(after, afterOwner)).isTrue();
		}
	}

	@Test
	void tokensThatStartWithTheOwnersOrThatItStartsWithCannotReleaseExtendOrKeepAResult() {
		String key = uniqueKey("token-prefix");
		String owner = "owner-abc";
		assertThat(store().tryAcquire(key, owner, TTL).isAcquired()).isTrue();
		for (String other : List.of("owner-ab", "owner-abcd", "owner-abc~", "owner-abc-", "owner-abc_")) {
			assertThat(store().release(key, other)).as("release by '%s'", other).isFalse();
			assertThat(store().extend(key, other, TTL)).as("extend by '%s'", other).isFalse();
			assertThat(sharedStore.putResult(key, other, new byte[] { 1 }, TTL)).as("result by '%s'", other).isFalse();
		}
		assertThat(sharedStore.getResult(key)).isNull();
		assertThat(store().release(key, owner)).isTrue();
	}

	@Test
	void releaseWakesSubscribersOfTheKeyOnly() throws InterruptedException {
		String key = uniqueKey("notified");
		String other = uniqueKey("other");
		String owner = uniqueToken();
		String otherOwner = uniqueToken();
		store().tryAcquire(key, owner, TTL);
		store().tryAcquire(other, otherOwner, TTL);
		CountDownLatch released = new CountDownLatch(1);
		CountDownLatch otherReleased = new CountDownLatch(1);
		try (ReleaseNotifyingLockStore.Subscription subscription = sharedStore.subscribe(key, released::countDown);
				ReleaseNotifyingLockStore.Subscription otherSubscription = sharedStore.subscribe(other,
						otherReleased::countDown)) {
			// The watch may open after the first release: release until it is seen
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			assertThat(store().release(key, owner)).isTrue();
			while (!released.await(200, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
				store().tryAcquire(key, owner, TTL);
				store().release(key, owner);
			}
			assertThat(released.getCount()).as("notifications of the released key").isZero();
			assertThat(otherReleased.getCount()).as("notifications of a key still held").isOne();
		}
		assertThat(store().release(other, otherOwner)).isTrue();
	}

	@Test
	void notificationsKeepComingAfterALeaderKill() throws InterruptedException {
		String key = uniqueKey("notified-after-kill");
		CountDownLatch released = new CountDownLatch(1);
		try (ReleaseNotifyingLockStore.Subscription subscription = sharedStore.subscribe(key, released::countDown)) {
			etcd.server().leader().kill();
			etcd.server().awaitLeader(Duration.ofSeconds(10));
			long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
			do {
				String owner = uniqueToken();
				AcquireReply acquired = EtcdAwait.acquired(store(), key, owner, TTL, Duration.ofSeconds(10));
				assertThat(acquired.isAcquired()).isTrue();
				assertThat(store().release(key, owner)).isTrue();
			}
			while (!released.await(200, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline);
			assertThat(released.getCount()).as("notifications after the leader was killed").isZero();
		}
	}

}
