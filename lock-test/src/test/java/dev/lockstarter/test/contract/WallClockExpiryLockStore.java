package dev.lockstarter.test.contract;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;

/**
 * A client of a shared in-memory "server" that makes the classic mistake of judging
 * expiry by wall clocks: the writer stores {@code now + ttl} by its own clock, and a
 * reader compares that with its own {@code now}. The negative control of
 * {@link SkewedClockContractTests}.
 */
final class WallClockExpiryLockStore implements LockStore {

	private final Map<String, Entry> server;

	private final Clock wallClock;

	WallClockExpiryLockStore(Map<String, Entry> server, Clock wallClock) {
		this.server = server;
		this.wallClock = wallClock;
	}

	static Map<String, Entry> newServer() {
		return new ConcurrentHashMap<>();
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		long now = this.wallClock.millis();
		Entry created = new Entry(token, now + ttl.toMillis());
		Entry current = this.server.compute(key,
				(k, existing) -> (existing == null || existing.expiresAt <= now) ? created : existing);
		return (current == created) ? AcquireReply.acquired()
				: AcquireReply.held(Duration.ofMillis(current.expiresAt - now));
	}

	@Override
	public boolean release(String key, String token) {
		long now = this.wallClock.millis();
		Entry existing = this.server.get(key);
		return existing != null && existing.token.equals(token) && existing.expiresAt > now
				&& this.server.remove(key, existing);
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		long now = this.wallClock.millis();
		Entry existing = this.server.get(key);
		return existing != null && existing.token.equals(token) && existing.expiresAt > now
				&& this.server.replace(key, existing, new Entry(token, now + ttl.toMillis()));
	}

	@Override
	public Duration timeToExpiry(String key) {
		Entry existing = this.server.get(key);
		return (existing != null) ? Duration.ofMillis(Math.max(0, existing.expiresAt - this.wallClock.millis()))
				: Duration.ZERO;
	}

	record Entry(String token, long expiresAt) {
	}

}
