package dev.lockstarter.server;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The locks each client holds through this instance, so that one API key cannot fill the
 * store: an acquisition takes a place first ({@link #tryReserve}), which becomes the
 * lock's once granted and is given back when it is refused, released through this
 * instance, or expires. A lock renewed or released through another instance is counted
 * here until its time-to-live, as last seen here, ends.
 *
 * @since 0.1.0
 */
final class LockQuotas {

	private final LongSupplier nanoClock;

	private final Map<String, Held> byClient = new ConcurrentHashMap<>();

	LockQuotas(LongSupplier nanoClock) {
		this.nanoClock = nanoClock;
	}

	/**
	 * Take a place for an acquisition by a client.
	 * @param client the client
	 * @return whether the client is below its quota; if so, the place is taken and must
	 * be given to {@link #granted} or {@link #refused}
	 */
	boolean tryReserve(ApiClients.ApiClient client) {
		return held(client).tryReserve(client.maxLocks(), this.nanoClock.getAsLong());
	}

	/**
	 * Turn a reserved place into a held lock.
	 * @param client the client
	 * @param key the lock's key
	 * @param ttlNanos its time-to-live from now
	 */
	void granted(ApiClients.ApiClient client, String key, long ttlNanos) {
		held(client).granted(key, this.nanoClock.getAsLong() + ttlNanos);
	}

	/**
	 * Give back a reserved place: the acquisition did not acquire.
	 * @param client the client
	 */
	void refused(ApiClients.ApiClient client) {
		held(client).refused();
	}

	/**
	 * Count a renewed lock until its new time-to-live ends.
	 * @param client the client
	 * @param key the lock's key
	 * @param ttlNanos the new time-to-live from now
	 */
	void renewed(ApiClients.ApiClient client, String key, long ttlNanos) {
		held(client).renewed(key, this.nanoClock.getAsLong() + ttlNanos);
	}

	/**
	 * Give back a released lock's place.
	 * @param client the client
	 * @param key the lock's key
	 */
	void released(ApiClients.ApiClient client, String key) {
		held(client).released(key);
	}

	private Held held(ApiClients.ApiClient client) {
		return this.byClient.computeIfAbsent(client.name(), (name) -> new Held());
	}

	/** One client's locks, by key, with the monotonic time each expires at. */
	private static final class Held {

		private final Map<String, Long> expiries = new HashMap<>();

		private int reserved;

		synchronized boolean tryReserve(int max, long now) {
			if (this.expiries.size() + this.reserved >= max) {
				this.expiries.values().removeIf((expiresAt) -> now - expiresAt >= 0);
				if (this.expiries.size() + this.reserved >= max) {
					return false;
				}
			}
			this.reserved++;
			return true;
		}

		synchronized void granted(String key, long expiresAt) {
			this.reserved--;
			this.expiries.put(key, expiresAt);
		}

		synchronized void refused() {
			this.reserved--;
		}

		synchronized void renewed(String key, long expiresAt) {
			this.expiries.computeIfPresent(key, (k, old) -> expiresAt);
		}

		synchronized void released(String key) {
			this.expiries.remove(key);
		}

	}

}
