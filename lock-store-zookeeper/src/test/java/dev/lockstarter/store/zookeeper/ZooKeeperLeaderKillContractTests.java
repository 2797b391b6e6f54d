package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.time.Duration;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.contract.ExclusionChecker;
import dev.lockstarter.test.contract.LockStoreContractTests;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsemble;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsembleExtension;

/**
 * {@link LockStoreContractTests} for {@link ZooKeeperLockStore} on an ensemble of three
 * servers whose leader is killed ({@code kill -9}) before every fifth test, the test then
 * running during the election: every call either rides through it within the store's
 * timeout or fails with a {@code LockStoreException}, and the whole suite must pass with
 * a timeout of 5 s.
 */
class ZooKeeperLeaderKillContractTests extends LockStoreContractTests {

	/**
	 * The store's timeout: longer than the default 2 s, which an election and the
	 * client's move to another server can exceed (calls then fail closed, as the store
	 * promises, but the suite must pass).
	 */
	private static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(5);

	@RegisterExtension
	static final ZooKeeperEnsembleExtension ensemble = new ZooKeeperEnsembleExtension();

	@RegisterExtension
	static final LeaderKiller leaderKiller = new LeaderKiller(ensemble, 5, 8);

	private static CuratorFramework client;

	private static ZooKeeperLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		client = TestClients.start(ensemble.connectString(), ELECTION_TIMEOUT, TestClients.SESSION_TIMEOUT);
		sharedStore = new ZooKeeperLockStore(client, ZooKeeperLockStore.DEFAULT_BASE_PATH, ELECTION_TIMEOUT,
				Clock.systemUTC());
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
		ZooKeeperEnsemble servers = ensemble.server();
		servers.servers().forEach((server) -> server.kill());
		servers.servers().forEach((server) -> server.restart());
		servers.awaitFormed(Duration.ofSeconds(30));
	}

	@Override
	protected boolean locksSurviveServerRestart() {
		return true;
	}

	@Override
	protected ExclusionChecker exclusionChecker() {
		return new ExclusionChecker().threads(8).attemptsPerThread(50);
	}

}
