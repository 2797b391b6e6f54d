package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.store.LockStore;

import static dev.lockstarter.test.contract.TemplateUnderTest.LONG_TTL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The life of a lease: renewal keeps the lock past its time-to-live and stops at the
 * release or at the maximum hold time, a lost lock is reported and its release deletes
 * nothing of the new owner, and a minimum hold keeps the lock after a fast release.
 */
interface LeaseRenewalContract extends TemplateContract {

	@Test
	default void renewedLockOutlivesItsTtlAndStaysExclusive() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("renewed");
		// A renewal every third of the time-to-live must reach the store within the
		// rest of it: 1 s leaves about 650 ms, where 400 ms left DynamoDB Local too
		// little on a loaded two-core machine
		Duration ttl = Duration.ofSeconds(1);
		Lease holder = fixture.locks().acquire(key, LockOptions.ttl(ttl));
		AtomicBoolean intruded = new AtomicBoolean();
		long end = System.nanoTime() + ttl.multipliedBy(5).dividedBy(2).toNanos();
		while (System.nanoTime() - end < 0) {
			if (store.tryAcquire(fixture.storeKey(key), "intruder", ttl).isAcquired()) {
				intruded.set(true);
			}
			assertThat(holder.isHeld()).isTrue();
			Thread.sleep(40);
		}
		assertThat(intruded).isFalse();
		assertThat(holder.release()).isTrue();
		assertThat(fixture.lostEvents()).isEmpty();
	}

	@Test
	default void renewalStopsWhenTheLeaseIsReleased() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("stop-renewing");
		Duration ttl = Duration.ofMillis(300);
		Lease lease = fixture.locks().acquire(key, LockOptions.ttl(ttl));
		assertThat(lease.release()).isTrue();
		assertThat(store.tryAcquire(fixture.storeKey(key), "next-owner", ttl).isAcquired()).isTrue();
		int extendsAfterRelease = fixture.recording().extendCalls();
		Thread.sleep(ttl.multipliedBy(2).toMillis());
		assertThat(fixture.recording().extendCalls()).isEqualTo(extendsAfterRelease);
		assertThat(store.tryAcquire(fixture.storeKey(key), "after-expiry", ttl).isAcquired()).isTrue();
	}

	@Test
	default void lostLockIsReportedAndItsReleaseDeletesNothingOfTheNewOwner() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("lost");
		Duration ttl = Duration.ofMillis(600);
		Lease lease = fixture.locks().acquire(key, LockOptions.ttl(ttl));
		String token = fixture.recording().acquiredTokens(fixture.storeKey(key)).get(0);
		// The lock vanishes behind the lease's back (as at expiry during a pause), and
		// another owner takes it.
		assertThat(store.release(fixture.storeKey(key), token)).isTrue();
		assertThat(store.tryAcquire(fixture.storeKey(key), "new-owner", LONG_TTL).isAcquired()).isTrue();
		await("the loss of " + key).atMost(Duration.ofSeconds(5))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(20))
			.until(() -> !lease.isHeld() && !fixture.lostEvents().isEmpty());
		assertThat(lease.isHeld()).isFalse();
		assertThat(fixture.lostEvents()).singleElement().satisfies((event) -> assertThat(event.key()).isEqualTo(key));
		assertThat(lease.release()).isFalse();
		assertThat(store.tryAcquire(fixture.storeKey(key), "probe", ttl).isAcquired()).isFalse();
		assertThat(store.release(fixture.storeKey(key), "new-owner")).isTrue();
	}

	@Test
	default void renewalStopsAtTheMaximumHoldTime() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("max-hold");
		Duration ttl = Duration.ofMillis(300);
		Lease lease = fixture.locks().acquire(key, LockOptions.ttl(ttl).withMaxHold(Duration.ofMillis(200)));
		await("the next owner of " + key).atMost(Duration.ofSeconds(5))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(20))
			.until(() -> store.tryAcquire(fixture.storeKey(key), "next-owner", ttl).isAcquired());
		assertThat(lease.isHeld()).isFalse();
		assertThat(lease.release()).isFalse();
		assertThat(store.release(fixture.storeKey(key), "next-owner")).isTrue();
	}

	@Test
	default void minimumHoldKeepsTheLockAfterAFastRelease() throws Exception {
		TemplateUnderTest fixture = templateUnderTest();
		String key = fixture.uniqueKey("double-click");
		LockOptions options = LockOptions.ttl(LONG_TTL).withHoldAtLeast(Duration.ofMillis(800));
		Lease first = fixture.locks().acquire(key, options);
		assertThat(first.release()).isTrue();
		Thread.sleep(50);
		LockAttempt doubleClick = fixture.locks().tryAcquire(key, options);
		assertThat(doubleClick.isAcquired()).isFalse();
		assertThat(doubleClick.holderRemainingTtl()).isLessThanOrEqualTo(Duration.ofMillis(800));
		LockAttempt later = await("the end of the minimum hold of " + key).atMost(Duration.ofSeconds(5))
			.pollDelay(Duration.ofMillis(50))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(50))
			.until(() -> fixture.locks().tryAcquire(key, options), LockAttempt::isAcquired);
		later.lease().release();
	}

}
