package dev.lockstarter.store.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.store.StoredLock;
import dev.lockstarter.test.etcd.EtcdServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The etcd store's listing and force-release beyond the shared contract, on a real etcd
 * server, each test on a store with lock and result prefixes of its own: hashed keys and
 * values that are not a lock's are left out of the listing, which reads keys back and
 * pages over the hashed ones; a force-release wakes the key's waiters, never deletes a
 * result, and a listed fencing token is the revision of the holder's last write.
 */
class EtcdLockInspectionTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	private static Client client;

	private String prefix;

	private EtcdLockStore store;

	@BeforeAll
	static void startClient() {
		client = EtcdTestClients.client(List.of(etcd.endpoint()));
	}

	@AfterAll
	static void closeClient() {
		if (client != null) {
			client.close();
		}
	}

	@BeforeEach
	void createStore() {
		String root = "/inspection-" + UUID.randomUUID();
		this.prefix = root + "/locks/";
		this.store = new EtcdLockStore(client, this.prefix, root + "/results/", EtcdTestClients.TIMEOUT,
				Clock.systemUTC());
	}

	@AfterEach
	void closeStore() {
		this.store.close();
	}

	@Test
	void holdersReadTheKeysBackInByteOrderAndStepOverHashedKeysAndValuesThatAreNoLocks() throws Exception {
		String smiley = "a/\ud83d\ude00";
		String accented = "a/\u00e9t\u00e9";
		String marked = "#sha256:x";
		String long1 = "l".repeat(600);
		String long2 = "m".repeat(600);
		for (String key : List.of("z", smiley, marked, long1, accented, long2, "b c%2F")) {
			assertThat(this.store.tryAcquire(key, token(), TTL).isAcquired()).as("acquire '%s'", key).isTrue();
		}
		client.getKVClient().put(utf8(this.prefix + "c"), utf8("not a lock")).get(5, TimeUnit.SECONDS);

		assertThat(this.store.holders("", 10)).extracting(StoredLock::key)
			.as("the hashed keys sort first, and are stepped over")
			.containsExactly(accented, smiley, "b c%2F", "z");
		assertThat(this.store.holders("", 2)).extracting(StoredLock::key)
			.as("a first page of hashed keys only")
			.containsExactly(accented, smiley);
		assertThat(this.store.holders("a/", 10)).extracting(StoredLock::key).containsExactly(accented, smiley);
		assertThat(this.store.holders("#", 10)).isEmpty();
		assertThat(this.store.holders(marked, 10)).isEmpty();
		assertThat(this.store.holders("l", 10)).as("a key kept as its hash").isEmpty();
		assertThat(this.store.forceRelease(long1)).as("a hashed key is force-released by its key").isTrue();
		assertThat(this.store.forceRelease(long1)).isFalse();
		assertThat(this.store.timeToExpiry(long2)).as("the other hashed key").isPositive();
		assertThat(this.store.forceRelease(smiley)).isTrue();
		assertThat(this.store.holders("", 10)).extracting(StoredLock::key).containsExactly(accented, "b c%2F", "z");
	}

	@Test
	void forceReleaseWakesTheWaitersOfTheKey() throws Exception {
		String key = "force-released";
		String other = "still-held";
		assertThat(this.store.tryAcquire(key, token(), TTL).isAcquired()).isTrue();
		assertThat(this.store.tryAcquire(other, token(), TTL).isAcquired()).isTrue();
		awaitWatchOpen();
		CountDownLatch released = new CountDownLatch(1);
		CountDownLatch otherReleased = new CountDownLatch(1);
		try (Subscription subscription = this.store.subscribe(key, released::countDown);
				Subscription otherSubscription = this.store.subscribe(other, otherReleased::countDown)) {
			assertThat(this.store.forceRelease(key)).isTrue();

			assertThat(released.await(5, TimeUnit.SECONDS)).as("the waiter woken by the force-release").isTrue();
			assertThat(otherReleased.getCount()).as("the waiter of a key still held").isOne();
		}
	}

	/**
	 * Wait until the store's release watch, opened by the first subscription, delivers
	 * releases.
	 */
	private void awaitWatchOpen() {
		String key = "watch-opened";
		String owner = token();
		CountDownLatch released = new CountDownLatch(1);
		try (Subscription subscription = this.store.subscribe(key, released::countDown)) {
			await().atMost(Duration.ofSeconds(10)).until(() -> {
				this.store.tryAcquire(key, owner, TTL);
				this.store.release(key, owner);
				return released.await(200, TimeUnit.MILLISECONDS);
			});
		}
	}

	private static ByteSequence utf8(String text) {
		return ByteSequence.from(text, StandardCharsets.UTF_8);
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

}
