package dev.lockstarter.integration;

import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;

import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} on two members, each with its
 * own store client, {@code LockTemplate} and {@link LockOperationsLockRegistry}, when the
 * leader is paused past the lock's time-to-live (a long garbage collection, a frozen
 * virtual machine): the paused member runs in a JVM of its own, stopped with
 * {@code SIGSTOP}, so that none of its threads (its initiator's heartbeat, its lease
 * renewer, its store client) makes progress while the other member takes over.
 * <p>
 * Once resumed, the paused member learns that it lost its leadership, leads again when
 * the other member yields, and, when it yields in turn, leaves the role to the other: its
 * failed heartbeat left it holding nothing that keeps the store's lock.
 * <p>
 * The lock's time-to-live is {@value #TTL_MILLIS} ms, the initiators' heartbeat
 * {@value #HEARTBEAT_MILLIS} ms and their busy wait (after a revocation or a yield)
 * {@value #BUSY_WAIT_MILLIS} ms. Subclasses start one server for the class and name the
 * {@link MemberStores} that opens a store on it. The class is public, and in this
 * module's test jar, for the store module that this module's tests cannot depend on: the
 * JDBC store's, whose tests run the adapters' conformance suite.
 */
public abstract class LeaderElectionPauseTests {

	static final long TTL_MILLIS = 1000;

	static final long HEARTBEAT_MILLIS = 250;

	static final long BUSY_WAIT_MILLIS = 1000;

	private static final Duration DEADLINE = Duration.ofSeconds(15);

	private final Leadership other = new Leadership();

	private @Nullable Leadership first;

	/**
	 * Return the class that opens a member's store; it has a no-argument constructor.
	 * @return the class
	 */
	protected abstract Class<? extends MemberStores> memberStores();

	/**
	 * Return the address of the class's server.
	 * @return the address
	 */
	protected abstract String address();

	@Test
	public void leaderPausedPastItsTimeToLiveLeadsAgainLaterAndLeavesTheRoleWhenItYields() throws Exception {
		ElectionMember.Settings settings = new ElectionMember.Settings("role-" + UUID.randomUUID(),
				Duration.ofMillis(TTL_MILLIS), Duration.ofMillis(HEARTBEAT_MILLIS),
				Duration.ofMillis(BUSY_WAIT_MILLIS));
		Path log = Path.of("target", "leader-election", getClass().getSimpleName() + "-paused.log");
		MemberStores otherStores = memberStores().getDeclaredConstructor().newInstance();
		try (ElectionMemberProcess paused = ElectionMemberProcess.start(memberStores(), address(), settings, "paused",
				log);
				ElectionMember otherMember = new ElectionMember(otherStores, address(), settings, "other",
						this.other::record)) {
			Leadership first = paused.leadership();
			this.first = first;
			awaitThat("the first member leads", first::isLeader);
			otherMember.start();
			paused.pause();
			awaitThat("the other member leads while the first is paused", this.other::isLeader);
			paused.resume();
			awaitThat("the resumed member learns that it no longer leads", () -> !first.isLeader());
			// Each yield once the other member tries again: the yielding one waits its
			// busy
			// wait before it does
			awaitThat("the resumed member tries to lead", first::isContending);
			otherMember.yieldLeadership();
			awaitThat("the resumed member leads again once the other yields",
					() -> first.isLeader() && !this.other.isLeader());
			awaitThat("the other member tries to lead", this.other::isContending);
			paused.yieldLeadership();
			awaitThat("the other member leads once the resumed member yields",
					() -> this.other.isLeader() && !first.isLeader());
		}
	}

	private void awaitThat(String what, Callable<Boolean> condition) {
		try {
			await(what).atMost(DEADLINE).until(condition);
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError(what + " did not happen within " + DEADLINE + "; events of the first member: "
					+ this.first + ", of the other: " + this.other, ex);
		}
	}

}
