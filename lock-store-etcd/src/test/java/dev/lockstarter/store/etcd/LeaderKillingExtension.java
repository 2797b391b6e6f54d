package dev.lockstarter.store.etcd;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

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
final class LeaderKillingExtension implements BeforeEachCallback, TestWatcher, AfterAllCallback {

	private static final Duration ELECTION_WAIT = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(LeaderKillingExtension.class);

	private final EtcdClusterExtension etcd;

	private final int every;

	private final int atLeast;

	private final Predicate<Method> runs;

	private final AtomicInteger tests = new AtomicInteger();

	private final AtomicInteger kills = new AtomicInteger();

	private final AtomicInteger wasted = new AtomicInteger();

	private volatile boolean killBeforeNextTest;

	private volatile boolean killedBeforeThisTest;

	LeaderKillingExtension(EtcdClusterExtension etcd, int every, int atLeast, Predicate<Method> runs) {
		this.etcd = etcd;
		this.every = every;
		this.atLeast = atLeast;
		this.runs = runs;
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		this.killedBeforeThisTest = false;
		boolean due = this.tests.incrementAndGet() % this.every == 0 || this.killBeforeNextTest;
		if (due && !this.runs.test(context.getRequiredTestMethod())) {
			// A test the store skips: kill before the next one instead
			this.killBeforeNextTest = true;
		}
		else if (due) {
			this.killBeforeNextTest = false;
			EtcdMember leader = this.etcd.server().leader();
			long started = System.nanoTime();
			leader.kill();
			this.killedBeforeThisTest = true;
			EtcdMember next = this.etcd.server().awaitLeader(ELECTION_WAIT);
			logger.info("Killed the leader " + leader.name() + " before " + context.getDisplayName() + "; "
					+ next.name() + " leads after " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
		}
	}

	@Override
	public void testSuccessful(ExtensionContext context) {
		counted();
	}

	@Override
	public void testFailed(ExtensionContext context, @Nullable Throwable cause) {
		counted();
	}

	@Override
	public void testAborted(ExtensionContext context, @Nullable Throwable cause) {
		if (this.killedBeforeThisTest) {
			// A skipped test made no call across the failover: kill again before the next
			this.wasted.incrementAndGet();
			this.killBeforeNextTest = true;
		}
	}

	private void counted() {
		if (this.killedBeforeThisTest) {
			this.kills.incrementAndGet();
		}
	}

	@Override
	public void afterAll(ExtensionContext context) {
		logger.info("Killed the leader " + this.kills.get() + " times before a test that ran, and " + this.wasted.get()
				+ " times before a skipped one, in " + this.tests.get() + " tests of " + context.getDisplayName());
		if (this.kills.get() < this.atLeast) {
			throw new AssertionError("Killed the leader " + this.kills.get() + " times, fewer than " + this.atLeast);
		}
	}

}
