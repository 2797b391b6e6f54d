package dev.lockstarter.store.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.lockstarter.store.SharedLockStore;

import static org.awaitility.Awaitility.await;

/**
 * Readers that keep arriving, until closed: each of them takes a new read place before it
 * gives up its last, so the key never lacks a reader unless a read is refused.
 */
final class ReaderStream implements AutoCloseable {

	private static final Duration TTL = Duration.ofSeconds(30);

	private final AtomicInteger inside = new AtomicInteger();

	private final AtomicInteger refused = new AtomicInteger();

	private final AtomicBoolean stopped = new AtomicBoolean();

	private final List<Thread> threads = new ArrayList<>();

	/**
	 * Start {@code count} readers of {@code key}, alternately on the two stores.
	 */
	ReaderStream(SharedLockStore first, SharedLockStore second, String key, int count) {
		for (int i = 0; i < count; i++) {
			SharedLockStore store = (i % 2 == 0) ? first : second;
			Thread thread = new Thread(() -> read(store, key), "reader-" + i);
			thread.setDaemon(true);
			thread.start();
			this.threads.add(thread);
		}
	}

	private void read(SharedLockStore store, String key) {
		String held = null;
		try {
			while (!this.stopped.get()) {
				String next = UUID.randomUUID().toString();
				boolean granted = store.tryAcquireRead(key, next, TTL).isAcquired();
				if (granted) {
					this.inside.incrementAndGet();
				}
				else {
					this.refused.incrementAndGet();
				}
				if (held != null) {
					this.inside.decrementAndGet();
					store.releaseShared(key, held);
				}
				held = granted ? next : null;
				Thread.sleep(20);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			if (held != null) {
				this.inside.decrementAndGet();
				store.releaseShared(key, held);
			}
		}
	}

	/** Wait until every reader holds a place. */
	void awaitOverlapping() throws InterruptedException {
		await("every reader inside").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> this.inside.get() >= this.threads.size());
	}

	int readersInside() {
		return this.inside.get();
	}

	int refusals() {
		return this.refused.get();
	}

	@Override
	public void close() throws InterruptedException {
		this.stopped.set(true);
		for (Thread thread : this.threads) {
			thread.join(10_000);
		}
	}

}
