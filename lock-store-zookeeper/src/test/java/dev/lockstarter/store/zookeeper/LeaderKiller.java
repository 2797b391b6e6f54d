package dev.lockstarter.store.zookeeper;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.lockstarter.test.zookeeper.ZooKeeperEnsemble;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsembleExtension;
import dev.lockstarter.test.zookeeper.ZooKeeperServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JUnit extension that kills the leader of an ensemble ({@code kill -9}) before every
 * {@code n}th test, without waiting for the election, so that the test runs while the two
 * other servers elect a new leader; the server killed before is restarted first, so that
 * two servers are always up or coming up. After the class it logs the number of kills and
 * checks that there were at least {@code minimumKills}.
 */
class LeaderKiller implements BeforeEachCallback, AfterAllCallback {

	private static final Log logger = LogFactory.getLog(LeaderKiller.class);

	private final ZooKeeperEnsembleExtension ensemble;

	private final int every;

	private final int minimumKills;

	private int tests;

	private int kills;

	private ZooKeeperServer killed;

	LeaderKiller(ZooKeeperEnsembleExtension ensemble, int every, int minimumKills) {
		this.ensemble = ensemble;
		this.every = every;
		this.minimumKills = minimumKills;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		if (++this.tests % this.every != 0) {
			return;
		}
		ZooKeeperEnsemble servers = this.ensemble.server();
		if (this.killed != null && !this.killed.isRunning()) {
			this.killed.restart();
			servers.awaitFormed(Duration.ofSeconds(30));
		}
		ZooKeeperServer leader = servers.awaitLeader(Duration.ofSeconds(30));
		leader.kill();
		this.killed = leader;
		this.kills++;
		logger.info("Killed leader " + leader + " before " + context.getDisplayName() + " (kill " + this.kills + ")");
	}

	@Override
	public void afterAll(ExtensionContext context) {
		logger.info("Killed the leader " + this.kills + " times in " + this.tests + " tests");
		assertThat(this.kills).as("leader kills").isGreaterThanOrEqualTo(this.minimumKills);
	}

}
