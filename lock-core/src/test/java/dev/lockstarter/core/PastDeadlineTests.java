package dev.lockstarter.core;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every path that writes for a lease checks its local deadline first, as the blocking
 * release does: a lease past it, which no deadline timer has come to yet (a timer run
 * late on a busy machine), is lost there and then, its lock is freed for the next owner,
 * and it never turns held again. Each lease here was acquired a whole time-to-live ago in
 * a real in-memory store and is watched by no timer.
 */
class PastDeadlineTests {

	private static final Duration TTL = Duration.ofSeconds(2);

	private final InMemoryLockStore store = new InMemoryLockStore();

	private final LockTemplate template = new LockTemplate(this.store, "");

	private final LockEvents events = new LockEvents("memory");

	@AfterEach
	void destroy() {
		this.template.destroy();
	}

	@Test
	void aRenewalConfirmedPastTheDeadlineLeavesTheLeaseLost() {
		StoreLease lease = pastItsDeadline("renewed");
		assertThat(lease.isHeld()).as("past its deadline").isFalse();
		lease.guard.lock();
		try {
			lease.renewed(System.nanoTime());
		}
		finally {
			lease.guard.unlock();
		}
		assertThat(lease.isHeld()).as("after a renewal confirmed past the deadline").isFalse();
		assertThat(lease.state()).isEqualTo(StoreLease.State.LOST);
		assertFreed("renewed");
	}

	@Test
	void aResultIsNotKeptPastTheDeadline() {
		StoreLease lease = pastItsDeadline("result");
		assertThat(lease.putResult("done".getBytes(StandardCharsets.UTF_8), TTL)).isFalse();
		assertThat(this.store.getResult("result")).as("no result kept").isNull();
		assertThat(lease.state()).isEqualTo(StoreLease.State.LOST);
		assertFreed("result");
	}

	@Test
	void aMultiKeyReleasePastTheDeadlineAnswersThatTheLockWasNotHeld() {
		StoreLease first = pastItsDeadline("multi-a");
		StoreLease second = pastItsDeadline("multi-b");
		MultiStoreLease lease = new MultiStoreLease(new StoreCapabilities(this.store), List.of(first, second));
		assertThat(lease.release()).as("the release of a lease lost at its deadline").isFalse();
		assertThat(first.state()).isEqualTo(StoreLease.State.LOST);
		assertThat(second.state()).isEqualTo(StoreLease.State.LOST);
		assertFreed("multi-a");
		assertFreed("multi-b");
	}

	@Test
	void aReactiveReleasePastTheDeadlineAnswersThatTheLockWasNotHeld() {
		StoreLease lease = pastItsDeadline("reactive");
		ReactiveLockTemplate reactive = new ReactiveLockTemplate(this.template);
		assertThat(reactive.release(lease).block(Duration.ofSeconds(5)))
			.as("the release of a lease lost at its deadline")
			.isFalse();
		assertThat(lease.state()).isEqualTo(StoreLease.State.LOST);
		assertFreed("reactive");
	}

	/**
	 * A lease on a lock held in the store now, acquired, by its own count, a whole
	 * time-to-live ago.
	 */
	private StoreLease pastItsDeadline(String key) {
		assertThat(this.store.tryAcquire(key, "token-" + key, TTL).isAcquired()).isTrue();
		StoreLease lease = new StoreLease(this.events, new StoreCapabilities(this.store), key, key, "token-" + key, 1,
				LockOptions.ttl(TTL), System.nanoTime() - TTL.toNanos(), LossMargin.DEFAULT);
		this.events.acquired(lease);
		return lease;
	}

	private void assertFreed(String key) {
		assertThat(this.store.timeToExpiry(key)).as("'%s', held for a time-to-live more in the store", key).isZero();
	}

}
