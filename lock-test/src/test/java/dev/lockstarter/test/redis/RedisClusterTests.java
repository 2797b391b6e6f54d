package dev.lockstarter.test.redis;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisCluster}.
 */
class RedisClusterTests {

	private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(30);

	@Test
	void clusterWithoutReplicasHasThreeMastersServingEverySlot() {
		try (RedisCluster cluster = RedisCluster.start()) {
			assertThat(cluster.nodes()).hasSize(3);
			assertThat(cluster.nodeForSlot(0)).isSameAs(cluster.nodes().get(0));
			assertThat(cluster.nodeForSlot(RedisCluster.SLOTS - 1)).isSameAs(cluster.nodes().get(2));
			assertThat(cluster.replicaOf(cluster.nodes().get(0))).isNull();
			assertThat(cluster.command("k", "SET", "k", "v")).isEqualTo("OK");
			assertThat(cluster.nodeFor("k").command("GET", "k")).isEqualTo("v");
		}
	}

	@Test
	void killedMasterIsReplacedByItsReplicaAndRejoinsAsTheReplicaOfTheNewMasterTwice() {
		try (RedisCluster cluster = RedisCluster.startWithReplicas()) {
			assertThat(cluster.nodes()).hasSize(6);
			RedisServer master = cluster.nodeFor("k");
			RedisServer replica = cluster.replicaOf(master);
			assertThat(replica).isNotNull().isNotSameAs(master);
			assertThat(cluster.command("k", "SET", "k", "v")).isEqualTo("OK");
			// Acknowledged by the replica: the failover keeps it
			assertThat(master.command("WAIT", "1", "5000")).isEqualTo("1");
			assertThat(cluster.killMaster(master, FAILOVER_TIMEOUT)).isSameAs(replica);
			assertThat(cluster.nodeFor("k")).isSameAs(replica);
			assertThat(replica.command("GET", "k")).isEqualTo("v");
			assertThat(cluster.replicaOf(replica)).as("replica of the new master").isSameAs(master);
			assertThat(master.command("INFO", "replication")).contains("role:slave").contains("master_link_status:up");
			assertThat(master.command("DBSIZE")).as("keys of the rejoined node, synced from the new master")
				.isEqualTo("1");
			// And back again
			assertThat(cluster.killMaster(replica, FAILOVER_TIMEOUT)).isSameAs(master);
			assertThat(cluster.nodeFor("k")).isSameAs(master);
			assertThat(master.command("GET", "k")).isEqualTo("v");
			assertThat(cluster.replicaOf(master)).isSameAs(replica);
		}
	}

}
