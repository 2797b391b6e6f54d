package dev.lockstarter.store;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ObservedExpiryTests {

	private static final Duration TTL = Duration.ofSeconds(5);

	private static final long TTL_NANOS = TTL.toNanos();

	private final AtomicLong clock = new AtomicLong(1_000_000_000L);

	private final ObservedExpiry expiry = new ObservedExpiry(this.clock::get, 4);

	@Test
	void aRecordSeenForTheFirstTimeCountsItsWholeTimeToLiveFromThatSight() {
		assertThat(this.expiry.remaining("k", "holder", 7, TTL)).isEqualTo(TTL_NANOS);
		advance(Duration.ofSeconds(3));
		assertThat(this.expiry.remaining("k", "holder", 7, TTL)).isEqualTo(TTL_NANOS - Duration.ofSeconds(3).toNanos());
		advance(Duration.ofSeconds(2));
		assertThat(this.expiry.remaining("k", "holder", 7, TTL)).isZero();
	}

	@Test
	void aNewVersionStartsTheCountAgain() {
		this.expiry.remaining("k", "holder", 7, TTL);
		advance(Duration.ofSeconds(4));
		assertThat(this.expiry.remaining("k", "holder", 8, TTL)).as("after the holder's renewal").isEqualTo(TTL_NANOS);
		advance(Duration.ofSeconds(4));
		assertThat(this.expiry.remaining("k", "holder", 8, TTL)).isPositive();
	}

	@Test
	void anotherHolderStartsTheCountAgain() {
		this.expiry.remaining("k", "first", 7, TTL);
		advance(TTL);
		assertThat(this.expiry.remaining("k", "second", 7, TTL)).isEqualTo(TTL_NANOS);
	}

	@Test
	void theHoldersTimeToLiveIsCountedNotTheContenders() {
		Duration longer = Duration.ofSeconds(30);
		this.expiry.remaining("k", "holder", 7, longer);
		advance(TTL);
		assertThat(this.expiry.remaining("k", "holder", 7, longer)).isPositive();
	}

	@Test
	void ownWritesCountFromWhenTheyWereSent() {
		long sentAt = this.clock.get();
		advance(Duration.ofSeconds(1));
		this.expiry.wrote("k", "mine", sentAt, TTL);
		assertThat(this.expiry.remaining("k", "mine", 42, TTL)).isEqualTo(TTL_NANOS - Duration.ofSeconds(1).toNanos());
		assertThat(this.expiry.ownRemaining("k", "mine")).isEqualTo(TTL_NANOS - Duration.ofSeconds(1).toNanos());
		assertThat(this.expiry.hasOutlived("k", "mine")).isFalse();
		advance(Duration.ofSeconds(4));
		assertThat(this.expiry.remaining("k", "mine", 43, TTL)).as("whatever version the read finds").isZero();
		assertThat(this.expiry.hasOutlived("k", "mine")).isTrue();
	}

	@Test
	void onlyOwnWritesAreKnownWithoutReading() {
		this.expiry.remaining("k", "theirs", 7, TTL);
		assertThat(this.expiry.ownRemaining("k", "theirs")).isNull();
		assertThat(this.expiry.hasOutlived("k", "theirs")).isFalse();
		this.expiry.wrote("k", "mine", this.clock.get(), TTL);
		assertThat(this.expiry.ownRemaining("k", "other")).isNull();
	}

	@Test
	void aForgottenRecordIsCountedAgainFromItsNextSight() {
		this.expiry.remaining("k", "holder", 7, TTL);
		advance(TTL);
		this.expiry.forget("k");
		assertThat(this.expiry.remaining("k", "holder", 7, TTL)).isEqualTo(TTL_NANOS);
		this.expiry.forget("k", "someone else");
		advance(TTL);
		assertThat(this.expiry.remaining("k", "holder", 7, TTL)).isZero();
		this.expiry.forget("k", "holder");
		assertThat(this.expiry.remaining("k", "holder", 7, TTL)).isEqualTo(TTL_NANOS);
	}

	@Test
	void aFullRecordMakesRoomAndAnEvictedSightingOnlyDelaysATakeover() {
		for (int i = 0; i < 4; i++) {
			this.expiry.remaining("k" + i, "holder", i, TTL);
		}
		advance(TTL);
		this.expiry.remaining("k4", "holder", 4, TTL);
		assertThat(this.expiry.size()).isLessThanOrEqualTo(4);
		for (int i = 0; i < 4; i++) {
			assertThat(this.expiry.remaining("k" + i, "holder", i, TTL)).as("k%d, seen again", i)
				.isGreaterThanOrEqualTo(0);
		}
	}

	private void advance(Duration duration) {
		this.clock.addAndGet(duration.toNanos());
	}

}
