package dev.lockstarter.test.zookeeper;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.lockstarter.test.fault.NamespaceNetwork;
import dev.lockstarter.test.zookeeper.ZooKeeperServer.Mode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for a {@link ZooKeeperEnsemble} on a {@link NamespaceNetwork}: a leader cut off
 * from the others by the network stops serving and follows once reconnected. They need a
 * machine that allows network namespaces (root), as the CI machines do.
 */
class ZooKeeperEnsemblePartitionTests {

	private static final Duration FAILOVER_BOUND = Duration.ofSeconds(10);

	private static NamespaceNetwork network;

	private static ZooKeeperEnsemble ensemble;

	@BeforeAll
	static void startTheEnsembleOnANetworkOfItsOwn() {
		assumeTrue(NamespaceNetwork.isSupported(), "network namespaces need root and 'ip' from iproute2");
		network = NamespaceNetwork.create(ZooKeeperEnsemble.SIZE);
		ensemble = ZooKeeperEnsemble.start(network);
	}

	@AfterAll
	static void stopTheEnsemble() {
		if (ensemble != null) {
			ensemble.close();
		}
		if (network != null) {
			network.close();
		}
	}

	@Test
	void isolatedLeaderStopsServingAndFollowsTheNewLeaderOnceReconnected() throws Exception {
		assertThat(ensemble.connectString()).startsWith("10.231.");
		ZooKeeperServer isolated = ensemble.leader();
		int index = ensemble.servers().indexOf(isolated);
		List<ZooKeeperServer> others = ensemble.servers().stream().filter((server) -> server != isolated).toList();
		network.isolate(index);
		ZooKeeperServer leader;
		try {
			// Without a quorum, the old leader stops serving after the sync limit; the
			// two
			// others elect one of them
			isolated.awaitMode(Mode.NOT_SERVING, FAILOVER_BOUND);
			leader = ensemble.awaitLeader(FAILOVER_BOUND);
			assertThat(leader).isIn(others);
			assertThat(ZooKeeperCli.run(others.get(0), "create", "/during-the-partition", "two of three").exitCode())
				.isZero();
		}
		finally {
			network.reconnect(index);
		}
		isolated.awaitMode(Mode.FOLLOWER, FAILOVER_BOUND);
		assertThat(ensemble.awaitFormed(FAILOVER_BOUND)).isSameAs(leader);
		ZooKeeperCli.Result read = ZooKeeperCli.run(isolated, "get", "/during-the-partition");
		assertThat(read.lines()).as("read through the reconnected server").contains("two of three");
	}

}
