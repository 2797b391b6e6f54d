package dev.lockstarter.core;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reactive acquisition cancelled before its blocking try has run never takes the lock,
 * not even for the moment it would take to release it again: a cancelled waiter must not
 * hold up the others.
 */
class ReactiveAcquisitionCancellationTests {

	private final LockTemplate locks = new LockTemplate(new InMemoryLockStore(), "t:");

	/** One thread: a task scheduled after the try runs after it. */
	private final Scheduler blocking = Schedulers.newSingle("blocking-tries");

	private final ReactiveLockTemplate reactiveLocks = new ReactiveLockTemplate(this.locks, this.blocking);

	@AfterEach
	void destroy() {
		this.locks.destroy();
		this.blocking.dispose();
	}

	@Test
	void multiKeyTryThatRunsAfterItsSubscriberCancelledTakesNothing() {
		this.reactiveLocks.tryAcquire(List.of("a", "b"), LockOptions.ttl(Duration.ofSeconds(30)))
			.subscribe(new BaseSubscriber<>() {

				@Override
				protected void hookOnSubscribe(Subscription subscription) {
					cancel();
				}

			});
		// The try was queued on the one blocking thread at the subscription: it has run
		// once this has
		Mono.empty().subscribeOn(this.blocking).block(Duration.ofSeconds(10));
		assertThat(this.locks.getHeldLocks()).as("locks held after the cancelled acquisition").isEmpty();
		for (String key : List.of("a", "b")) {
			LockAttempt after = this.locks.tryAcquire(key, LockOptions.ttl(Duration.ofSeconds(30)));
			assertThat(after.isAcquired()).as("'%s' free after the cancelled acquisition", key).isTrue();
			after.lease().close();
		}
	}

}
