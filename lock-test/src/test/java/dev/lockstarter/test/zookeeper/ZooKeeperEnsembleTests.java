package dev.lockstarter.test.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.zookeeper.ZooKeeperServer.Mode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ZooKeeperEnsemble}: its roles, replication and failovers, through
 * four-letter words and ZooKeeper's command-line client. The tests share one ensemble,
 * healed after each.
 */
class ZooKeeperEnsembleTests {

	private static final Duration FAILOVER_BOUND = Duration.ofSeconds(10);

	private static final Duration REPLICATION_BOUND = Duration.ofSeconds(20);

	private static final Log logger = LogFactory.getLog(ZooKeeperEnsembleTests.class);

	@RegisterExtension
	static final ZooKeeperEnsembleExtension extension = new ZooKeeperEnsembleExtension();

	@AfterEach
	void heal() {
		extension.server().heal(Duration.ofSeconds(30));
	}

	@Test
	void formsWithExactlyOneLeaderAndTwoFollowers(ZooKeeperEnsemble ensemble) {
		Map<Mode, List<ZooKeeperServer>> byMode = ensemble.servers()
			.stream()
			.collect(Collectors.groupingBy(ZooKeeperServer::mode));
		assertThat(byMode.get(Mode.LEADER)).singleElement().isSameAs(ensemble.leader());
		assertThat(byMode.get(Mode.FOLLOWER)).hasSize(2);
		assertThat(byMode).containsOnlyKeys(Mode.LEADER, Mode.FOLLOWER);
		assertThat(ensemble.servers()).extracting(ZooKeeperServer::id).containsExactly(1, 2, 3);
		assertThat(ensemble.servers()).extracting(ZooKeeperServer::port).doesNotHaveDuplicates();
		assertThat(extension.connectString()).isEqualTo(ensemble.servers()
			.stream()
			.map((server) -> "127.0.0.1:" + server.port())
			.collect(Collectors.joining(",")));
	}

	@Test
	void znodeWrittenThroughOneServerIsReadThroughTheOthers(ZooKeeperEnsemble ensemble) throws Exception {
		assertThat(ZooKeeperCli.run(ensemble.server(0), "create", "/replicated", "through server 1").exitCode())
			.isZero();
		awaitValue(ensemble.server(1), "/replicated", "through server 1");
		awaitValue(ensemble.server(2), "/replicated", "through server 1");
	}

	@Test
	void killedLeaderIsReplacedByAnotherServerAndTheEnsembleStillServes(ZooKeeperEnsemble ensemble) throws Exception {
		ZooKeeperServer killed = ensemble.leader();
		long start = System.nanoTime();
		killed.kill();
		ZooKeeperServer leader = ensemble.awaitLeader(FAILOVER_BOUND);
		logger.info("New leader " + leader.id() + " " + elapsedMillis(start) + " ms after leader " + killed.id()
				+ " was killed");
		assertThat(leader).isNotSameAs(killed);
		List<ZooKeeperServer> survivors = survivors(ensemble, killed);
		assertThat(survivors).extracting(ZooKeeperServer::mode).containsExactlyInAnyOrder(Mode.LEADER, Mode.FOLLOWER);
		assertThat(ZooKeeperCli.run(survivors.get(0), "create", "/after-kill", "two of three").exitCode()).isZero();
		awaitValue(survivors.get(1), "/after-kill", "two of three");
	}

	@Test
	void restartedServerRejoinsAsAFollowerWithTheWritesItMissed(ZooKeeperEnsemble ensemble) throws Exception {
		ZooKeeperServer killed = ensemble.leader();
		killed.kill();
		ZooKeeperServer leader = ensemble.awaitLeader(FAILOVER_BOUND);
		assertThat(ZooKeeperCli.run(leader, "create", "/while-down", "missed").exitCode()).isZero();
		int port = killed.port();
		long start = System.nanoTime();
		killed.restart();
		killed.awaitMode(Mode.FOLLOWER, FAILOVER_BOUND);
		logger.info("Server " + killed.id() + " followed " + elapsedMillis(start) + " ms after its restart");
		assertThat(killed.port()).isEqualTo(port);
		assertThat(ensemble.awaitFormed(FAILOVER_BOUND)).isSameAs(leader);
		awaitValue(killed, "/while-down", "missed");
	}

	@Test
	void leaderPausedPastTheSyncLimitIsReplacedAndFollowsOnceResumed(ZooKeeperEnsemble ensemble) throws Exception {
		ZooKeeperServer paused = ensemble.leader();
		long start = System.nanoTime();
		paused.pause();
		// The pause lasts until the others have elected a leader, past the sync limit
		ZooKeeperServer leader = ensemble.awaitLeader(FAILOVER_BOUND);
		long elected = elapsedMillis(start);
		logger.info("New leader " + leader.id() + " " + elected + " ms after leader " + paused.id() + " was paused");
		assertThat(leader).isNotSameAs(paused);
		assertThat(Duration.ofMillis(elected)).isGreaterThanOrEqualTo(ZooKeeperEnsemble.LEADER_TIMEOUT);
		List<ZooKeeperServer> others = survivors(ensemble, paused);
		assertThat(ZooKeeperCli.run(others.get(0), "create", "/while-paused", "two of three").exitCode()).isZero();
		paused.resume();
		paused.awaitMode(Mode.FOLLOWER, FAILOVER_BOUND);
		assertThat(ensemble.awaitFormed(FAILOVER_BOUND)).isSameAs(leader);
		awaitValue(paused, "/while-paused", "two of three");
	}

	private static List<ZooKeeperServer> survivors(ZooKeeperEnsemble ensemble, ZooKeeperServer lost) {
		return ensemble.servers().stream().filter((server) -> server != lost).toList();
	}

	/**
	 * Read a znode through a server until it has the value: a follower applies a write
	 * once the leader commits it, which may be after the writer's server answered.
	 */
	private static void awaitValue(ZooKeeperServer server, String path, String value) throws Exception {
		await().atMost(REPLICATION_BOUND)
			.pollInterval(Duration.ZERO)
			.untilAsserted(
					() -> assertThat(ZooKeeperCli.run(server, "get", path).lines()).as("%s through %s", path, server)
						.contains(value));
	}

	private static long elapsedMillis(long start) {
		return Duration.ofNanos(System.nanoTime() - start).toMillis();
	}

}
