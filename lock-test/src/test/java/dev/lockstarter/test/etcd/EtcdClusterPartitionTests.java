package dev.lockstarter.test.etcd;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.lockstarter.test.fault.NamespaceNetwork;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Tests for an {@link EtcdCluster} on a {@link NamespaceNetwork}: a leader cut off from
 * the others by the network loses its place, and catches up once reconnected. They need a
 * machine that allows network namespaces (root), as the CI machines do.
 */
class EtcdClusterPartitionTests {

	private static final Duration ELECTION_BOUND = Duration.ofSeconds(10);

	private static NamespaceNetwork network;

	private static EtcdCluster cluster;

	@BeforeAll
	static void startTheClusterOnANetworkOfItsOwn() {
		assumeTrue(NamespaceNetwork.isSupported(), "network namespaces need root and 'ip' from iproute2");
		network = NamespaceNetwork.create(EtcdCluster.SIZE);
		cluster = EtcdCluster.start(network);
	}

	@AfterAll
	static void stopTheCluster() {
		if (cluster != null) {
			cluster.close();
		}
		if (network != null) {
			network.close();
		}
	}

	@Test
	void isolatedLeaderIsReplacedStillAnswersItsClientsAndCatchesUpOnceReconnected() {
		assertThat(cluster.endpoints()).allMatch((url) -> url.startsWith("http://10.231."));
		EtcdMember leader = cluster.leader();
		int index = cluster.members().indexOf(leader);
		long before = leader.gateway().put("before-the-partition", "1");
		network.isolate(index);
		EtcdMember next;
		try {
			next = awaitAnotherLeader(leader);
			EtcdMember survivor = cluster.members()
				.stream()
				.filter((member) -> member != leader && member != next)
				.findFirst()
				.orElseThrow();
			assertThat(survivor.gateway().put("during-the-partition", "2")).isGreaterThan(before);
			// Reached by its clients, the isolated member steps down once it has not
			// heard
			// from a majority for an election timeout, and cannot serve a linearizable
			// read
			await().atMost(ELECTION_BOUND)
				.pollInterval(Duration.ofMillis(20))
				.untilAsserted(
						() -> assertThat(leader.gateway().status().isLeader()).as("the isolated member still leads")
							.isFalse());
			assertThat(leader.isHealthy()).as("the isolated member is healthy").isFalse();
		}
		finally {
			network.reconnect(index);
		}
		leader.awaitHealthy(ELECTION_BOUND);
		assertThat(leader.gateway().get("during-the-partition")).as("read through the reconnected member")
			.isEqualTo("2");
		assertThat(leader.gateway().status().leaderId()).isEqualTo(cluster.awaitLeader(ELECTION_BOUND).id());
	}

	private static EtcdMember awaitAnotherLeader(EtcdMember old) {
		return await().alias("leader " + ELECTION_BOUND.toMillis() + " ms after the partition")
			.atMost(ELECTION_BOUND)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> cluster.awaitLeader(ELECTION_BOUND), (leader) -> leader != old);
	}

}
