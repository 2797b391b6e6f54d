package dev.lockstarter.store.etcd;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.SkewedClockContractTests;
import dev.lockstarter.test.etcd.EtcdServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link SkewedClockContractTests} on one etcd server, each store on its own client; and
 * etcd's own expiry: a key abandoned long ago is deleted at the end of its lease, counted
 * by etcd, and taken at once by a store that never saw it.
 */
class EtcdSkewedClockTests extends SkewedClockContractTests {

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	private final List<Client> clients = new ArrayList<>();

	private final List<EtcdLockStore> stores = new ArrayList<>();

	@Override
	protected LockStore createStore(Clock wallClock) {
		Client client = EtcdTestClients.client(List.of(etcd.endpoint()));
		this.clients.add(client);
		EtcdLockStore store = new EtcdLockStore(client, EtcdLockStore.DEFAULT_PREFIX,
				EtcdLockStore.DEFAULT_RESULTS_PREFIX, EtcdTestClients.TIMEOUT, wallClock);
		this.stores.add(store);
		return store;
	}

	@Override
	protected boolean issuesFencingTokens() {
		return true;
	}

	@AfterAll
	void closeStores() {
		this.stores.forEach(EtcdLockStore::close);
		this.clients.forEach(Client::close);
	}

	@Test
	void keyAbandonedLongAgoIsDeletedByEtcdAtItsLeasesEndAndTakenAtOnce() throws Exception {
		String key = key("abandoned");
		Duration ttl = Duration.ofSeconds(1);
		long sent = System.nanoTime();
		assertThat(ahead().tryAcquire(key, token(), ttl).isAcquired()).isTrue();
		// A lease bucket of 2 s, granted for 4 s: the key is gone within 4 s and some
		EtcdLockStore behind = (EtcdLockStore) behind();
		Client observer = this.clients.get(this.stores.indexOf(behind));
		await("etcd's deletion of the abandoned key at its lease's end").atMost(Duration.ofSeconds(8))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> observer.getKVClient().get(behind.lockKey(key)).get(5, TimeUnit.SECONDS).getKvs().isEmpty());
		assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("time until etcd deleted the abandoned key")
			.isGreaterThanOrEqualTo(ttl.plus(EtcdLeases.MARGIN));
		assertThat(behind.tryAcquire(key, token(), TTL).isAcquired())
			.as("first acquisition by a store that never saw the key")
			.isTrue();
	}

}
