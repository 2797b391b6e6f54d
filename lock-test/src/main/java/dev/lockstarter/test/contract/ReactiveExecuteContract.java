package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The work that {@link dev.lockstarter.core.ReactiveLockTemplate#execute} guards: the
 * lease is renewed while the guarded publisher runs and released when it completes, fails
 * or is cancelled, and the callback is not called while another owner holds the lock.
 */
interface ReactiveExecuteContract extends ReactiveTemplateContract {

	@Test
	default void executeReleasesWhenThePublisherCompletes() {
		String key = uniqueKey("complete");
		String value = reactiveLocks().execute(key, LockOptions.ttl(LONG_TTL), (lease) -> Mono.fromCallable(() -> {
			assertThat(locks().tryAcquire(key, LONG_TTL).isAcquired()).isFalse();
			return "done";
		})).single().block(BLOCK);
		assertThat(value).isEqualTo("done");
		assertFree(key);
	}

	@Test
	default void executeReleasesWhenThePublisherFails() {
		String key = uniqueKey("error");
		assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> reactiveLocks()
			.execute(key, LockOptions.ttl(LONG_TTL), (lease) -> Mono.error(new IllegalStateException("boom")))
			.blockLast(BLOCK));
		assertFree(key);
	}

	@Test
	default void executeReleasesWhenTheSubscriberCancels() throws Exception {
		String key = uniqueKey("cancel");
		AtomicBoolean started = new AtomicBoolean();
		Disposable running = reactiveLocks()
			.execute(key, LockOptions.ttl(LONG_TTL),
					(lease) -> Mono.delay(Duration.ofSeconds(20)).doOnSubscribe((s) -> started.set(true)))
			.subscribe();
		await("the start of the guarded publisher").atMost(BLOCK)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(5))
			.untilTrue(started);
		assertThat(locks().tryAcquire(key, LONG_TTL).isAcquired()).isFalse();
		running.dispose();
		assertFreeWithin(key, Duration.ofSeconds(2));
	}

	@Test
	default void executeDoesNotCallTheCallbackWhenTheLockIsHeld() {
		String key = uniqueKey("held");
		AtomicBoolean called = new AtomicBoolean();
		try (Lease holder = locks().acquire(key, LONG_TTL)) {
			assertThatExceptionOfType(LockConflictException.class)
				.isThrownBy(() -> reactiveLocks().execute(key, LockOptions.ttl(LONG_TTL), (lease) -> {
					called.set(true);
					return Mono.just(1);
				}).blockLast(BLOCK));
		}
		assertThat(called).isFalse();
	}

	@Test
	default void leaseIsRenewedWhileThePublisherRuns() {
		String key = uniqueKey("renewed");
		// Renewed every third of the time-to-live: two seconds leave a renewal 1.3 s of
		// slack on a loaded machine (one second left 600 ms)
		Duration ttl = Duration.ofSeconds(2);
		AtomicReference<Boolean> heldLate = new AtomicReference<>();
		reactiveLocks()
			.execute(key, LockOptions.ttl(ttl),
					(lease) -> Mono.delay(ttl.multipliedBy(5).dividedBy(2))
						.publishOn(Schedulers.boundedElastic())
						.doOnNext((tick) -> heldLate.set(!locks().tryAcquire(key, ttl).isAcquired())))
			.blockLast(BLOCK);
		assertThat(heldLate.get()).as("held past two and a half time-to-lives").isTrue();
		assertFree(key);
	}

}
