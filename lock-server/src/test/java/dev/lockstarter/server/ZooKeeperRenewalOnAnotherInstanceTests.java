package dev.lockstarter.server;

import java.util.List;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.zookeeper.ZooKeeperServerExtension;

/**
 * {@link RenewalOnAnotherInstanceTests} on a real ZooKeeper. The server is not packaged
 * with the ZooKeeper store; the test adds it, to run the server's detached operations on
 * it.
 */
class ZooKeeperRenewalOnAnotherInstanceTests extends RenewalOnAnotherInstanceTests {

	@RegisterExtension
	static final ZooKeeperServerExtension zookeeper = new ZooKeeperServerExtension();

	@Override
	protected List<String> storeProperties() {
		return List.of("lock.store=zookeeper", "lock.zookeeper.connect-string=" + zookeeper.connectString());
	}

}
