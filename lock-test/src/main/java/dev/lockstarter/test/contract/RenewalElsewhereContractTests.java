package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.test.clock.ManualClock;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of a store that expires locks by observed silence ({@link ObservedExpiry})
 * when a lock held by one token is written by two instances: a detached lease (the lock
 * server's, or {@code LockTemplate.extendDetached}) is acquired on one instance and
 * renewed by token on another. Two stores on one server, each with a record of sightings
 * of its own on one {@link ManualClock}, as two application servers whose monotonic
 * clocks run at the same rate; {@link #TTL} ten seconds, never reached on the real clock.
 * <ul>
 * <li>the first instance acquires at 0 s, the second renews at 6 s: at 10.05 s the first
 * refuses a second owner (it must not count the renewal from its own write at 0 s), and
 * the key is taken over only once the first has seen the renewal unchanged for a whole
 * time-to-live;</li>
 * <li>the first instance renews at 10.05 s, after the second did: the lock is held, so
 * the renewal is accepted;</li>
 * <li>the first instance releases at 10.05 s: the lock was held all along by its count,
 * so the release frees it and answers {@code true};</li>
 * <li>the control: without the renewal elsewhere, the first instance takes the key over
 * at 10 s and refuses to renew it, so the tests above tell the two apart.</li>
 * </ul>
 * A subclass creates each store with {@link #createStore(ObservedExpiry)}, on a client of
 * its own, and closes what it opened.
 */
public abstract class RenewalElsewhereContractTests {

	/** The time-to-live of every lock of the contract. */
	protected static final Duration TTL = Duration.ofSeconds(10);

	private static final Duration RENEWED_AFTER = Duration.ofSeconds(6);

	private static final Duration PAST_FIRST_WRITE = Duration.ofMillis(4_050);

	private final ManualClock clock = ManualClock.start();

	private final String key = "lock-test:renewal-elsewhere:" + UUID.randomUUID();

	/**
	 * Create a store on the server under test, as the store of another application
	 * server: a client of its own, sharing nothing with the other stores but the server,
	 * counting silence with {@code observed}.
	 * @param observed the store's record of sightings
	 * @return the store
	 */
	protected abstract LockStore createStore(ObservedExpiry observed);

	@Test
	void aRenewalOnAnotherInstanceIsNotCountedFromTheFirstInstancesOwnWrite() {
		LockStore first = createStore(this.clock.expiry());
		LockStore second = createStore(this.clock.expiry());
		acquireThenRenewElsewhere(first, second);
		assertThat(first.tryAcquire(this.key, "other client", TTL).isAcquired())
			.as("a second owner on the first instance, 4.05 s past its own write's time-to-live")
			.isFalse();
		assertThat(first.timeToExpiry(this.key)).as("the time left by the first instance's count").isPositive();
		this.clock.advance(TTL);
		assertThat(first.tryAcquire(this.key, "other client", TTL).isAcquired())
			.as("a second owner once the renewal was seen unchanged for a whole time-to-live")
			.isTrue();
	}

	@Test
	void theFirstInstanceRenewsALockThatTheSecondRenewedBeforeIt() {
		LockStore first = createStore(this.clock.expiry());
		LockStore second = createStore(this.clock.expiry());
		acquireThenRenewElsewhere(first, second);
		assertThat(first.extend(this.key, "client", TTL)).as("renewed on the first after the second renewed").isTrue();
		this.clock.advance(TTL.minusSeconds(1));
		assertThat(second.tryAcquire(this.key, "other client", TTL).isAcquired())
			.as("a second owner within the first instance's renewal")
			.isFalse();
	}

	@Test
	void theFirstInstanceReleasesALockThatTheSecondRenewedAsHeld() {
		LockStore first = createStore(this.clock.expiry());
		LockStore second = createStore(this.clock.expiry());
		acquireThenRenewElsewhere(first, second);
		assertThat(first.release(this.key, "client")).as("released on the first, held by its count").isTrue();
		assertThat(second.tryAcquire(this.key, "other client", TTL).isAcquired()).as("free after the release").isTrue();
	}

	/**
	 * Acquire on the first store at 0 s, renew on the second at 6 s, and move the clock
	 * to 10.05 s: past the first write's time-to-live, within the renewal's.
	 */
	private void acquireThenRenewElsewhere(LockStore first, LockStore second) {
		assertThat(first.tryAcquire(this.key, "client", TTL).isAcquired()).as("acquired on the first").isTrue();
		this.clock.advance(RENEWED_AFTER);
		assertThat(second.extend(this.key, "client", TTL)).as("renewed on the second").isTrue();
		this.clock.advance(PAST_FIRST_WRITE);
	}

	@Test
	void withoutTheRenewalTheFirstInstanceCountsItsOwnWrite() {
		LockStore first = createStore(this.clock.expiry());
		assertThat(first.tryAcquire(this.key, "client", TTL).isAcquired()).isTrue();
		this.clock.advance(TTL);
		assertThat(first.extend(this.key, "client", TTL)).as("a renewal past its own write's time-to-live").isFalse();
		assertThat(first.tryAcquire(this.key, "other client", TTL).isAcquired())
			.as("a second owner past the holder's time-to-live")
			.isTrue();
	}

}
