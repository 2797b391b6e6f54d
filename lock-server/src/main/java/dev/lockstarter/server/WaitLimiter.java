package dev.lockstarter.server;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the acquisitions that wait, per client and in all, so that one API key cannot
 * take every waiting place: beyond either limit a wait is refused. Waits hold no thread,
 * but each holds a connection and a little memory until it ends.
 *
 * @since 0.1.0
 */
final class WaitLimiter {

	private final int maxWaits;

	private final AtomicInteger waiting = new AtomicInteger();

	private final Map<String, AtomicInteger> waitingByClient = new ConcurrentHashMap<>();

	/**
	 * Create a limiter.
	 * @param maxWaits the most waits of all clients together
	 */
	WaitLimiter(int maxWaits) {
		this.maxWaits = maxWaits;
	}

	/**
	 * Take a waiting place for a client, to be given back with {@link #end} once the wait
	 * is over.
	 * @param client the client
	 * @return whether the client may wait
	 */
	boolean tryStart(ApiClients.ApiClient client) {
		AtomicInteger own = waitingOf(client);
		if (own.incrementAndGet() > client.maxWaits()) {
			own.decrementAndGet();
			return false;
		}
		if (this.waiting.incrementAndGet() > this.maxWaits) {
			this.waiting.decrementAndGet();
			own.decrementAndGet();
			return false;
		}
		return true;
	}

	/**
	 * Give back a waiting place taken by {@link #tryStart}.
	 * @param client the client
	 */
	void end(ApiClients.ApiClient client) {
		this.waiting.decrementAndGet();
		waitingOf(client).decrementAndGet();
	}

	private AtomicInteger waitingOf(ApiClients.ApiClient client) {
		return this.waitingByClient.computeIfAbsent(client.name(), (name) -> new AtomicInteger());
	}

	/**
	 * Return the waits in progress.
	 * @return the count
	 */
	int waiting() {
		return this.waiting.get();
	}

}
