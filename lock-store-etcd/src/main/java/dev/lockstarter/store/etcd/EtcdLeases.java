package dev.lockstarter.store.etcd;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.etcd.jetcd.Lease;
import io.etcd.jetcd.lease.LeaseGrantResponse;

/**
 * The leases that the etcd store binds its keys to, so that etcd itself deletes the key
 * of a holder that never released it: the store counting expiry, on the etcd leader's
 * clock, never sooner than the key's lifetime plus {@link #MARGIN} after the write was
 * sent, so never before its holder, which counts its time-to-live from the same moment,
 * lost the lock.
 * <p>
 * A key written with a lifetime {@code t} (a lock's time-to-live, a result's) is bound to
 * a lease that lives at least {@code t} plus {@link #MARGIN} longer: leases are shared by
 * every key whose lifetime falls in the same bucket (whole seconds rounded up to a power
 * of two, {@code b}), granted with a TTL of {@code 2b} seconds and used until less than
 * {@code t + MARGIN} of them remains. A lease's end is reckoned from the moment its grant
 * was sent, on this JVM's monotonic clock, so it is never later than etcd's own count;
 * etcd 3.4 renews a lease's TTL on a leader change, which only moves the end later. No
 * lease is kept alive, revoked or shared across JVMs: most acquisitions find a lease
 * granted earlier and cost one request, and a lease outlives its last key by less than
 * {@code 2b} seconds, after which etcd forgets it.
 */
final class EtcdLeases {

	/** How much longer than a key's lifetime its lease lives at least. */
	static final Duration MARGIN = Duration.ofSeconds(1);

	private final Lease leases;

	private final EtcdCalls calls;

	private final Map<Long, Granted> granted = new ConcurrentHashMap<>();

	EtcdLeases(Lease leases, EtcdCalls calls) {
		this.leases = leases;
		this.calls = calls;
	}

	/**
	 * Return the id of a lease that lives at least {@code lifetime} plus the margin from
	 * now, granting one if needed.
	 */
	long leaseFor(Duration lifetime, long deadline, String key) {
		long needed = lifetime.plus(MARGIN).toNanos();
		long bucket = bucketSeconds(lifetime);
		Granted current = this.granted.get(bucket);
		long now = System.nanoTime();
		if (current != null && current.endsAt - now >= needed) {
			return current.id;
		}
		long ttl = 2 * bucket;
		LeaseGrantResponse response = this.calls.await(this.leases.grant(ttl), deadline, "grant a lease for", key);
		Granted fresh = new Granted(response.getID(), now + Duration.ofSeconds(response.getTTL()).toNanos());
		this.granted.merge(bucket, fresh, (old, next) -> (next.endsAt - old.endsAt > 0) ? next : old);
		return fresh.id;
	}

	/**
	 * Stop using a lease that etcd no longer knows, so that the next key gets a new one.
	 */
	void forget(long id) {
		this.granted.values().removeIf((lease) -> lease.id == id);
	}

	/**
	 * Stop using every lease.
	 */
	void forgetAll() {
		this.granted.clear();
	}

	static long bucketSeconds(Duration lifetime) {
		long seconds = Math.max(1, lifetime.plus(MARGIN).plusMillis(999).toSeconds());
		long powerOfTwo = Long.highestOneBit(seconds);
		return (powerOfTwo == seconds) ? seconds : powerOfTwo << 1;
	}

	private record Granted(long id, long endsAt) {
	}

}
