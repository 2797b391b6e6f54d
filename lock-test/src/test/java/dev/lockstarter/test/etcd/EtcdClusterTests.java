package dev.lockstarter.test.etcd;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link EtcdCluster}: one cluster for the class, healed by the extension
 * before every test.
 */
class EtcdClusterTests {

	/** Generous for a loaded machine: etcd elects within one to two election timeouts. */
	private static final Duration ELECTION_BOUND = Duration.ofSeconds(10);

	@RegisterExtension
	static final EtcdClusterExtension etcd = new EtcdClusterExtension();

	private EtcdCluster cluster;

	@BeforeEach
	void everyMemberIsHealthyAtTheStartOfEveryTest(EtcdCluster cluster) {
		this.cluster = cluster;
		assertThat(cluster.members()).hasSize(3).allMatch(EtcdMember::isHealthy);
	}

	@Test
	void writeThroughOneMemberIsReadThroughTheOthers() {
		List<String> endpoints = this.cluster.endpoints();
		assertThat(endpoints).hasSize(3).doesNotHaveDuplicates().allMatch((url) -> url.startsWith("http://127.0.0.1:"));
		assertThat(etcd.endpointsAsString()).isEqualTo(String.join(",", endpoints));
		assertThat(this.cluster.members()).extracting(EtcdMember::id).doesNotHaveDuplicates().doesNotContain(0L);
		this.cluster.member(0).gateway().put("written-through-0", "value");
		assertThat(this.cluster.member(1).gateway().get("written-through-0")).isEqualTo("value");
		assertThat(this.cluster.member(2).gateway().get("written-through-0")).isEqualTo("value");
		EtcdMember leader = this.cluster.leader();
		for (EtcdMember member : this.cluster.members()) {
			assertThat(member.gateway().status().leaderId()).as("leader named by %s", member.name())
				.isEqualTo(leader.id());
		}
		assertThatIllegalArgumentException().isThrownBy(() -> this.cluster.member(3));
	}

	@Test
	void killedLeaderIsReplacedAndASurvivorAcceptsWrites() {
		EtcdMember leader = this.cluster.leader();
		long before = leader.gateway().put("before-kill", "1");
		leader.kill();
		EtcdMember next = this.cluster.awaitLeader(ELECTION_BOUND);
		assertThat(next).isNotSameAs(leader);
		assertThat(next.isHealthy()).isTrue();
		assertThat(leader.isHealthy()).isFalse();
		EtcdMember survivor = other(leader, next);
		assertThat(survivor.gateway().put("after-kill", "2")).isGreaterThan(before);
		assertThat(next.gateway().get("after-kill")).isEqualTo("2");
		assertThat(survivor.gateway().get("before-kill")).isEqualTo("1");
	}

	@Test
	void restartedMemberRejoinsWithTheWritesItMissed() {
		EtcdMember leader = this.cluster.leader();
		leader.kill();
		EtcdMember next = this.cluster.awaitLeader(ELECTION_BOUND);
		next.gateway().put("while-down", "missed");
		leader.restart();
		assertThat(this.cluster.members()).allMatch(EtcdMember::isHealthy);
		assertThat(leader.gateway().get("while-down")).as("read through the restarted member").isEqualTo("missed");
		EtcdMember current = this.cluster.awaitLeader(ELECTION_BOUND);
		assertThat(leader.gateway().status().leaderId()).as("leader named by the restarted member")
			.isEqualTo(current.id());
	}

	@Test
	void pausedLeaderIsReplacedAndFollowsTheNewLeaderOnceResumed() {
		EtcdMember leader = this.cluster.leader();
		leader.pause();
		EtcdMember next;
		try {
			next = this.cluster.awaitLeader(ELECTION_BOUND);
			assertThat(next).isNotSameAs(leader);
			next.gateway().put("while-paused", "written");
		}
		finally {
			leader.resume();
		}
		await().alias("resumed leader steps down within " + ELECTION_BOUND)
			.atMost(ELECTION_BOUND)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> leader.isHealthy() && !leader.gateway().status().isLeader());
		assertThat(leader.gateway().get("while-paused")).isEqualTo("written");
		EtcdMember current = this.cluster.awaitLeader(ELECTION_BOUND);
		assertThat(current).as("the resumed member follows instead of leading again").isSameAs(next);
		assertThat(leader.gateway().status().leaderId()).isEqualTo(next.id());
	}

	@Test
	void clusterWithoutAMajorityHasNoLeaderAndHealsWithEveryMemberBack() {
		this.cluster.member(0).gateway().put("before-the-outage", "kept");
		EtcdMember survivor = this.cluster.member(2);
		this.cluster.member(0).kill();
		this.cluster.member(1).kill();
		// The survivor answers, and may still call itself leader: one vote is no majority
		assertThatIllegalStateException().isThrownBy(this.cluster::leader)
			.withMessageContaining("no leader")
			.withMessageContaining(survivor.name() + " (" + Long.toHexString(survivor.id()) + "): member "
					+ Long.toHexString(survivor.id()));
		survivor.pause();
		this.cluster.heal();
		assertThat(this.cluster.members()).allMatch(EtcdMember::isHealthy);
		assertThat(this.cluster.awaitLeader(ELECTION_BOUND)).isIn(this.cluster.members());
		for (EtcdMember member : this.cluster.members()) {
			assertThat(member.gateway().get("before-the-outage")).as("read through %s", member.name())
				.isEqualTo("kept");
		}
	}

	private EtcdMember other(EtcdMember first, EtcdMember second) {
		return this.cluster.members()
			.stream()
			.filter((member) -> member != first && member != second)
			.findFirst()
			.orElseThrow();
	}

}
