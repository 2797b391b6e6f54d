package dev.lockstarter.test.contract;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.SharedLockStore;

import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_DEADLINE;
import static dev.lockstarter.test.contract.StoreUnderTest.EXPIRY_TOLERANCE;
import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.SHORT_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.sleep;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The writer preference of the read/write locks of a {@link SharedLockStore}: a refused
 * writer's wait holds back new readers until it is granted, releases by its token or runs
 * out, for no longer than the writer's time-to-live unless it asks again, and a writer
 * that will not wait holds back no one. Skipped for other stores.
 */
interface WriterPreferenceContract extends StoreContract {

	@Test
	default void aWaitingWriterHoldsBackNewReadersUntilItIsGranted() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("waiting-writer");
		String reader = fixture.uniqueToken();
		Duration readerTtl = Duration.ofSeconds(10);
		assertThat(store.tryAcquireRead(key, reader, readerTtl).isAcquired()).isTrue();
		String writer = fixture.uniqueToken();
		assertThat(store.tryAcquireWrite(key, writer, LONG_TTL, LONG_TTL).isAcquired()).isFalse();
		AcquireReply held = store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL);
		assertThat(held.isAcquired()).as("a new reader while a writer waits").isFalse();
		assertThat(held.holderRemainingTtl()).as("the readers' longest remaining time-to-live")
			.isPositive()
			.isLessThanOrEqualTo(readerTtl);
		assertThat(store.releaseShared(key, reader)).isTrue();
		assertThat(store.tryAcquireWrite(key, writer, LONG_TTL, LONG_TTL).isAcquired())
			.as("the waiting writer once the readers left")
			.isTrue();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a reader beside the writer")
			.isFalse();
		assertThat(store.releaseShared(key, writer)).isTrue();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a reader after the writer left")
			.isTrue();
	}

	@Test
	default void aWritersWaitEndsWhenItIsGranted() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("wait-granted");
		String reader = fixture.uniqueToken();
		assertThat(store.tryAcquireRead(key, reader, LONG_TTL).isAcquired()).isTrue();
		String writer = fixture.uniqueToken();
		assertThat(store.tryAcquireWrite(key, writer, LONG_TTL, LONG_TTL).isAcquired()).isFalse();
		assertThat(store.releaseShared(key, reader)).isTrue();
		assertThat(store.tryAcquireWrite(key, writer, SHORT_TTL, LONG_TTL).isAcquired()).isTrue();
		// The writer's place expires, unreleased: its wait, which would last LONG_TTL,
		// ended when it was granted
		fixture.awaitGranted(key, () -> store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL));
	}

	@Test
	default void aWritersWaitEndsWhenItReleasesByItsToken() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("wait-released");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		String writer = fixture.uniqueToken();
		assertThat(store.tryAcquireWrite(key, writer, LONG_TTL, LONG_TTL).isAcquired()).isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader while a writer waits")
			.isFalse();
		assertThat(store.releaseShared(key, fixture.uniqueToken())).as("a release by another token").isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader after another token's release")
			.isFalse();
		assertThat(store.releaseShared(key, writer)).as("the writer held no place").isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader once the writer gave up its wait")
			.isTrue();
	}

	@Test
	default void aWritersWaitEndsOnceItsWaitPasses() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("wait-passes");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		long start = System.nanoTime();
		assertThat(store.tryAcquireWrite(key, fixture.uniqueToken(), LONG_TTL, SHORT_TTL).isAcquired()).isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader while a writer waits")
			.isFalse();
		fixture.awaitGranted(key, () -> store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until new readers were granted again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE));
	}

	@Test
	default void aWaitingWriterThatStopsAskingHoldsReadersBackForAtMostItsTimeToLive() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("crashed-writer");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		long start = System.nanoTime();
		// A writer that would wait LONG_TTL is refused once, then crashes: it never asks
		// again and never releases
		assertThat(store.tryAcquireWrite(key, fixture.uniqueToken(), SHORT_TTL, LONG_TTL).isAcquired()).isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader while the writer's wait lasts")
			.isFalse();
		fixture.awaitGranted(key, () -> store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL));
		assertThat(Duration.ofNanos(System.nanoTime() - start)).as("time until new readers were granted again")
			.isGreaterThanOrEqualTo(SHORT_TTL.minus(EXPIRY_TOLERANCE))
			.isLessThan(EXPIRY_DEADLINE);
	}

	@Test
	default void aWriterThatGoesOnAskingHoldsReadersBackPastItsTimeToLive() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("asking-writer");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		String writer = fixture.uniqueToken();
		// Two seconds: a try that a loaded machine delays by more than the TTL lets the
		// recorded wait end, as it should. Twice the TTL shows the wait outliving it.
		Duration ttl = Duration.ofSeconds(2);
		long end = System.nanoTime() + ttl.multipliedBy(2).toNanos();
		while (System.nanoTime() - end < 0) {
			// Each refused try records the wait anew, for another TTL
			assertThat(store.tryAcquireWrite(key, writer, ttl, LONG_TTL).isAcquired()).isFalse();
			assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
				.as("a new reader while the writer goes on asking")
				.isFalse();
			sleep(ttl.dividedBy(10));
		}
		assertThat(store.releaseShared(key, writer)).as("the writer held no place").isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader once the writer gave up its wait")
			.isTrue();
	}

	@Test
	default void aWriterThatWillNotWaitHoldsNoReaderBack() {
		StoreUnderTest fixture = storeUnderTest();
		SharedLockStore store = fixture.sharedStore();
		String key = fixture.uniqueKey("no-wait");
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired()).isTrue();
		assertThat(store.tryAcquireWrite(key, fixture.uniqueToken(), LONG_TTL, Duration.ZERO).isAcquired()).isFalse();
		assertThat(store.tryAcquireRead(key, fixture.uniqueToken(), LONG_TTL).isAcquired())
			.as("a new reader after a writer that will not wait was refused")
			.isTrue();
	}

}
