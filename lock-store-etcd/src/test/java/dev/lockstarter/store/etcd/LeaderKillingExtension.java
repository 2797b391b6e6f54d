package dev.lockstarter.store.etcd;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import dev.lockstarter.test.etcd.EtcdClusterExtension;
import dev.lockstarter.test.etcd.EtcdMember;

/**
 * Kills ({@code kill -9}) the leader of a test class's cluster before every
 * {@code every}-th test, and waits until the two others have elected a new one: the test
 * runs on two members, with a leader that took over in the middle of the suite. Register
 * it after the {@link EtcdClusterExtension}, which restarts the member killed before the
 * test that follows. After the last test, it logs how many leaders it killed, and fails
 * the class if it killed fewer than {@code atLeast}.
 * <p>
 * It waits for the election because etcd 3.4 drops a write that a follower receives while
 * it has no leader, and answers it only when its own request timeout (about six seconds
 * here) has passed; the store has given up by then, with a
 * {@link dev.lockstarter.store.LockStoreException}, which would fail the test.
 * {@link EtcdLeaderKillContractTests} checks the calls made during an election apart.
 */
final class LeaderKillingExtension implements BeforeEachCallback, AfterAllCallback {

	private static final Duration ELECTION_WAIT = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(LeaderKillingExtension.class);

	private final EtcdClusterExtension etcd;

	private final int every;

	private final int atLeast;

	private final AtomicInteger tests = new AtomicInteger();

	private final AtomicInteger kills = new AtomicInteger();

	LeaderKillingExtension(EtcdClusterExtension etcd, int every, int atLeast) {
		this.etcd = etcd;
		this.every = every;
		this.atLeast = atLeast;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		if (this.tests.incrementAndGet() % this.every == 0) {
			EtcdMember leader = this.etcd.server().leader();
			long started = System.nanoTime();
			leader.kill();
			this.kills.incrementAndGet();
			EtcdMember next = this.etcd.server().awaitLeader(ELECTION_WAIT);
			logger.info("Killed the leader " + leader.name() + " before " + context.getDisplayName() + "; "
					+ next.name() + " leads after " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		logger.info("Killed the leader " + this.kills.get() + " times in " + this.tests.get() + " tests of "
				+ context.getDisplayName());
		if (this.kills.get() < this.atLeast) {
			throw new AssertionError("Killed the leader " + this.kills.get() + " times, fewer than " + this.atLeast);
		}
	}

}
