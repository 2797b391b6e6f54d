package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * {@link KilledHolderExpiry#awaitRenewals} on a clock the test moves: a lock of 2 s
 * renewed every 667 ms, as the killed-holder tests' holder renews it, read through
 * {@code PTTL} by a poller that a busy machine lets run only every 700 ms. The time left
 * then shrinks from reading to reading although the lock is renewed before each: a wait
 * that compared the times left saw no renewal and failed the killed-holder test.
 */
class KilledHolderExpiryTests {

	private static final long TTL = 2000;

	private static final long RENEWAL_PERIOD = 667;

	private final AtomicLong now = new AtomicLong();

	@Test
	void renewalsAreSeenThoughTheReadingsComeLessOftenThanThem() {
		AtomicInteger readings = new AtomicInteger();
		assertThatNoException().isThrownBy(() -> KilledHolderExpiry.awaitRenewals(() -> {
			readings.incrementAndGet();
			this.now.addAndGet(700);
			return KilledHolderExpiry.Expiry.remaining(() -> renewedExpiry() - this.now.get(), this.now::get);
		}, 2, Duration.ofSeconds(5)));
		// The first reading, then one per renewal; comparing the times left, which fall
		// by 33 ms from reading to reading, took 41 readings (29 s of this clock)
		assertThat(readings).hasValue(3);
	}

	@Test
	void aLockThatIsNotRenewedShowsNoRenewalHoweverSlowTheReadings() {
		long expiry = TTL;
		assertThatExceptionOfType(ConditionTimeoutException.class).isThrownBy(() -> KilledHolderExpiry.awaitRenewals(
				() -> KilledHolderExpiry.Expiry.remaining(() -> expiry - this.now.get(), () -> this.now.addAndGet(300)),
				1, Duration.ofMillis(500)));
	}

	private long renewedExpiry() {
		return (this.now.get() / RENEWAL_PERIOD) * RENEWAL_PERIOD + TTL;
	}

}
