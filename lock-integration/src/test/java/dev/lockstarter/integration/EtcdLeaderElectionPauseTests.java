package dev.lockstarter.integration;

import java.time.Duration;

import io.etcd.jetcd.Client;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.etcd.EtcdClients;
import dev.lockstarter.store.etcd.EtcdLockStore;
import dev.lockstarter.test.etcd.EtcdServerExtension;

/**
 * {@link LeaderElectionPauseTests} on the {@link EtcdLockStore}, against a real etcd
 * server; each member has a jetcd client of its own.
 */
class EtcdLeaderElectionPauseTests extends LeaderElectionPauseTests {

	@RegisterExtension
	static final EtcdServerExtension etcd = new EtcdServerExtension();

	@Override
	protected Class<? extends MemberStores> memberStores() {
		return Stores.class;
	}

	@Override
	protected String address() {
		return etcd.endpoint();
	}

	static final class Stores implements MemberStores {

		private static final Duration TIMEOUT = Duration.ofSeconds(2);

		@Override
		public Opened open(String address) {
			Client client = EtcdClients.client(TIMEOUT, address);
			EtcdLockStore store = new EtcdLockStore(client, TIMEOUT);
			return new Opened(store, () -> {
				store.close();
				client.close();
			});
		}

	}

}
