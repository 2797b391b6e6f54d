package dev.lockstarter.store;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
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
		this.expiry.wrote("k", "mine", 42, sentAt, TTL);
		assertThat(this.expiry.remaining("k", "mine", 42, TTL)).isEqualTo(TTL_NANOS - Duration.ofSeconds(1).toNanos());
		assertThat(this.expiry.ownRemaining("k", "mine", 42)).isEqualTo(TTL_NANOS - Duration.ofSeconds(1).toNanos());
		assertThat(this.expiry.outlivedVersion("k", "mine")).isNull();
		advance(Duration.ofSeconds(4));
		assertThat(this.expiry.remaining("k", "mine", 42, TTL)).isZero();
		assertThat(this.expiry.outlivedVersion("k", "mine")).isEqualTo(42);
	}

	@Test
	void aRenewalWithTheSameTokenOnAnotherInstanceIsCountedFromItsFirstSight() {
		ObservedExpiry other = new ObservedExpiry(this.clock::get, 4);
		Duration ttl = Duration.ofSeconds(10);
		this.expiry.wrote("k", "holder", 1, this.clock.get(), ttl);
		advance(Duration.ofSeconds(6));
		other.wrote("k", "holder", 2, this.clock.get(), ttl);
		advance(Duration.ofMillis(4_050));
		assertThat(this.expiry.outlivedVersion("k", "holder")).as("this JVM's own write").isEqualTo(1);
		assertThat(this.expiry.remaining("k", "holder", 2, ttl)).as("the renewal, first seen now")
			.isEqualTo(ttl.toNanos());
		assertThat(this.expiry.ownRemaining("k", "holder", 2)).as("not this JVM's write").isNull();
		assertThat(this.expiry.outlivedVersion("k", "holder")).as("no write of this JVM's is kept any longer").isNull();
	}

	@Test
	void anOwnWriteWhoseAnswerWasLostIsCountedFromItsFirstSight() {
		this.expiry.wrote("k", "mine", 1, this.clock.get(), TTL);
		advance(Duration.ofSeconds(3));
		assertThat(this.expiry.remaining("k", "mine", 2, TTL)).as("an extension applied, its answer lost")
			.isEqualTo(TTL_NANOS);
	}

	@Test
	void onlyOwnWritesAreKnownWithoutReading() {
		this.expiry.remaining("k", "theirs", 7, TTL);
		advance(TTL);
		assertThat(this.expiry.ownRemaining("k", "theirs", 7)).isNull();
		assertThat(this.expiry.outlivedVersion("k", "theirs")).isNull();
		this.expiry.wrote("k", "mine", 8, this.clock.get(), TTL);
		assertThat(this.expiry.ownRemaining("k", "other", 8)).isNull();
		assertThat(this.expiry.ownRemaining("k", "mine", 9)).isNull();
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

	@Test
	void aboveTheBoundTheSightingsForgottenAreNotAlwaysTheSameOnes() {
		ObservedExpiry small = new ObservedExpiry(this.clock::get, 20);
		Set<String> forgotten = new HashSet<>();
		for (int round = 0; round < 20; round++) {
			for (int i = 0; i < 20; i++) {
				small.remaining("k" + i, "holder", i, TTL);
			}
			small.remaining("new" + round, "holder", 0, TTL);
			for (int i = 0; i < 20; i++) {
				if (!small.isKept("k" + i)) {
					forgotten.add("k" + i);
				}
			}
			small.forget("new" + round);
		}
		assertThat(forgotten).as("keys forgotten at least once over 20 evictions").hasSizeGreaterThan(4);
	}

	@Test
	void ownWritesAreForgottenAfterOthersSightings() {
		ObservedExpiry small = new ObservedExpiry(this.clock::get, 10);
		for (int i = 0; i < 5; i++) {
			small.wrote("own" + i, "mine", i, this.clock.get(), TTL);
			small.remaining("theirs" + i, "holder", i, TTL);
		}
		small.remaining("one more", "holder", 0, TTL);
		for (int i = 0; i < 5; i++) {
			assertThat(small.ownRemaining("own" + i, "mine", i)).as("own%d", i).isNotNull();
		}
	}

	private void advance(Duration duration) {
		this.clock.addAndGet(duration.toNanos());
	}

}
