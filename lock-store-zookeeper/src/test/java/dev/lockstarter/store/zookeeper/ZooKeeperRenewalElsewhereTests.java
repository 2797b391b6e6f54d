package dev.lockstarter.store.zookeeper;

import java.time.Clock;

import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.test.contract.RenewalElsewhereContractTests;

/**
 * {@link RenewalElsewhereContractTests} on a real ZooKeeper, the two stores of a test
 * each on a client (a session) of its own.
 */
class ZooKeeperRenewalElsewhereTests extends RenewalElsewhereContractTests {

	private static final String BASE_PATH = "/renewal-elsewhere";

	@RegisterExtension
	static final InJvmZooKeeper zookeeper = new InJvmZooKeeper();

	private static CuratorFramework[] clients;

	private int created;

	@BeforeAll
	static void startClients() {
		clients = new CuratorFramework[] { TestClients.start(zookeeper.connectString()),
				TestClients.start(zookeeper.connectString()) };
	}

	@AfterAll
	static void closeClients() {
		for (CuratorFramework client : clients) {
			client.close();
		}
	}

	@BeforeEach
	void firstClient() {
		this.created = 0;
	}

	@Override
	protected LockStore createStore(ObservedExpiry observed) {
		CuratorFramework client = clients[this.created++ % clients.length];
		return new ZooKeeperLockStore(client, BASE_PATH, TestClients.TIMEOUT, Clock.systemUTC(), observed);
	}

}
