package dev.lockstarter.test.contract;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;

import static dev.lockstarter.test.contract.StoreUnderTest.LONG_TTL;
import static dev.lockstarter.test.contract.StoreUnderTest.SHORT_TTL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A store answers again after its server restarts, without being recreated, and the locks
 * held before are gone or, for a durable store, still held. Skipped for a store without a
 * server.
 */
interface ServerRestartContract extends StoreContract {

	@Test
	default void storeAnswersAgainAfterItsServerRestarts() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		String key = fixture.uniqueKey("restart");
		String owner = fixture.uniqueToken();
		assertThat(store.tryAcquire(key, owner, LONG_TTL).isAcquired()).isTrue();
		fixture.restartServer();
		awaitStoreAnswers();
		String next = fixture.uniqueToken();
		AcquireReply after = store.tryAcquire(key, next, LONG_TTL);
		if (fixture.locksSurviveServerRestart()) {
			assertThat(after.isAcquired()).as("acquire of a lock held before the restart of a durable store").isFalse();
			assertThat(store.release(key, owner)).as("release by the owner from before the restart").isTrue();
		}
		else {
			assertThat(after.isAcquired()).as("acquire of a lock held before the restart, which the server lost")
				.isTrue();
			assertThat(store.release(key, owner)).as("release by the owner from before the restart").isFalse();
			assertThat(store.release(key, next)).isTrue();
		}
		String other = fixture.uniqueKey("after-restart");
		String otherOwner = fixture.uniqueToken();
		assertThat(store.tryAcquire(other, otherOwner, LONG_TTL).isAcquired()).isTrue();
		fixture.assertHeld(other);
		assertThat(store.extend(other, otherOwner, LONG_TTL)).isTrue();
		assertThat(store.release(other, otherOwner)).isTrue();
	}

	/** Probe the store until it answers, for at most 15 seconds. */
	private void awaitStoreAnswers() {
		StoreUnderTest fixture = storeUnderTest();
		LockStore store = fixture.store();
		// A fresh key each time, as a failed attempt may still have been applied
		await("the store's answer after its server restarted").atMost(Duration.ofSeconds(15))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(20))
			.ignoreException(LockStoreException.class)
			.until(() -> store.tryAcquire(fixture.uniqueKey("probe"), fixture.uniqueToken(), SHORT_TTL) != null);
	}

}
