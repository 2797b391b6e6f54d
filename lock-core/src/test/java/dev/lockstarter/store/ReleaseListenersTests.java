package dev.lockstarter.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link ReleaseListeners}: who is called on a release, and the interleaving of a
 * listener that joins a key while the key's last listener leaves.
 */
class ReleaseListenersTests {

	@Test
	void releaseCallsTheListenersOfItsKeyUntilTheyLeave() {
		ReleaseListeners listeners = new ReleaseListeners();
		AtomicInteger first = new AtomicInteger();
		AtomicInteger second = new AtomicInteger();
		AtomicInteger other = new AtomicInteger();
		ReleaseNotifyingLockStore.Subscription firstSubscription = listeners.add("k", first::incrementAndGet);
		listeners.add("k", second::incrementAndGet);
		listeners.add("other", other::incrementAndGet);
		listeners.released("k");
		assertThat(first).hasValue(1);
		assertThat(second).hasValue(1);
		assertThat(other).hasValue(0);
		firstSubscription.close();
		listeners.released("k");
		assertThat(first).hasValue(1);
		assertThat(second).hasValue(2);
		assertThat(listeners.isWatched("k")).isTrue();
	}

	@Test
	void keyIsNoLongerWatchedOnceItsLastListenerLeaves() {
		ReleaseListeners listeners = new ReleaseListeners();
		ReleaseNotifyingLockStore.Subscription subscription = listeners.add("k", () -> {
		});
		assertThat(listeners.isWatched("k")).isTrue();
		subscription.close();
		assertThat(listeners.isWatched("k")).isFalse();
	}

	/**
	 * A waiter subscribes while the key's only other waiter leaves with its lock. The
	 * joining listener is paused inside its addition to the key's set: the leaving one
	 * must not drop that set meanwhile, or the joining waiter would never hear a release
	 * and would fall back to polling.
	 */
	@Test
	void listenerThatJoinsWhileTheKeysLastListenerLeavesIsStillCalled() throws Exception {
		AtomicBoolean pauseNextAddition = new AtomicBoolean();
		CountDownLatch adding = new CountDownLatch(1);
		CountDownLatch proceed = new CountDownLatch(1);
		ReleaseListeners listeners = new ReleaseListeners(() -> new CopyOnWriteArraySet<>() {

			@Override
			public boolean add(Runnable listener) {
				if (pauseNextAddition.compareAndSet(true, false)) {
					adding.countDown();
					try {
						proceed.await(10, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				}
				return super.add(listener);
			}

		});
		ReleaseNotifyingLockStore.Subscription leaving = listeners.add("k", () -> {
		});
		AtomicInteger heard = new AtomicInteger();
		pauseNextAddition.set(true);
		CompletableFuture<ReleaseNotifyingLockStore.Subscription> joining = CompletableFuture
			.supplyAsync(() -> listeners.add("k", heard::incrementAndGet));
		assertThat(adding.await(10, TimeUnit.SECONDS)).as("the joining listener being added").isTrue();
		Thread leaver = new Thread(leaving::close, "leaving-listener");
		leaver.start();
		// Either the leave is done (the joining listener's set already dropped) or it
		// waits for the addition to end
		await("the leave done or waiting").atMost(Duration.ofSeconds(10))
			.until(() -> leaver.getState() == Thread.State.TERMINATED || leaver.getState() == Thread.State.BLOCKED
					|| leaver.getState() == Thread.State.WAITING);
		proceed.countDown();
		joining.get(10, TimeUnit.SECONDS);
		leaver.join(10_000);
		assertThat(leaver.isAlive()).isFalse();
		listeners.released("k");
		assertThat(heard).as("calls of the listener that joined").hasValue(1);
		assertThat(listeners.isWatched("k")).isTrue();
	}

}
