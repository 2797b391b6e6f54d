package dev.lockstarter.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Expiry that no wall clock decides, for stores that cannot count a lock's time-to-live
 * themselves: a lock may be taken over only once this JVM has seen its holder's record
 * stay unchanged for the holder's whole time-to-live, on this JVM's monotonic clock.
 * <p>
 * A holder's record names its owner token, its time-to-live (a duration, never a point in
 * time) and has a version that the store changes with every write: etcd's
 * {@code mod_revision}, ZooKeeper's {@code mzxid}, Memcached's CAS value, an attribute
 * that the DynamoDB store draws anew. The holder rewrites its record with every renewal,
 * so a record that stays unchanged for its whole time-to-live belongs to a holder that
 * stopped renewing, and a takeover conditioned on that version fails if the holder writes
 * in between.
 * <p>
 * Safety needs only that clocks <em>run</em> at about the same rate, never that they
 * agree: the contender starts counting when it first sees the record, which is after the
 * holder sent the write, and the holder counts its lease from when it sent the write
 * ({@code dev.lockstarter.core.Lease} is lost locally before its time-to-live runs out).
 * What a contender pays is time: a record it has never seen before counts a whole
 * time-to-live from that first sight, so the first contender for a key whose holder
 * crashed long ago waits one time-to-live.
 * <p>
 * A JVM's own writes count from when they were sent, so that locks that this JVM wrote
 * expire for it exactly at their time-to-live. A write is known as this JVM's own by its
 * version, never by its token alone: a lock held by a token may be renewed by another
 * instance (a detached lease, extended by token wherever its holder calls), and that
 * renewal is a record this JVM has not seen before, counted from when it first sees it.
 * This record of sightings is bounded ({@link #DEFAULT_MAX_ENTRIES}): forgetting a
 * sighting only makes a contender wait longer.
 *
 * @since 0.1.0
 */
public final class ObservedExpiry {

	/** The most keys whose sightings are kept by default. */
	public static final int DEFAULT_MAX_ENTRIES = 65_536;

	private final LongSupplier nanoTime;

	private final int maxEntries;

	private final Map<String, Sighting> sightings = new ConcurrentHashMap<>();

	/**
	 * Create a record of sightings on {@link System#nanoTime()}.
	 */
	public ObservedExpiry() {
		this(System::nanoTime, DEFAULT_MAX_ENTRIES);
	}

	/**
	 * Create a record of sightings.
	 * @param nanoTime the monotonic clock, in nanoseconds, as {@link System#nanoTime()}
	 * @param maxEntries the most keys whose sightings are kept, positive
	 */
	public ObservedExpiry(LongSupplier nanoTime, int maxEntries) {
		Assert.notNull(nanoTime, "'nanoTime' must not be null");
		Assert.isTrue(maxEntries > 0, "'maxEntries' must be positive");
		this.nanoTime = nanoTime;
		this.maxEntries = maxEntries;
	}

	/**
	 * Return the monotonic time now, from the clock this record counts with.
	 * @return the time, in nanoseconds
	 */
	public long now() {
		return this.nanoTime.getAsLong();
	}

	/**
	 * Record that the store confirmed this JVM's write of {@code key}'s record as the
	 * holder {@code token}, an acquisition or an extension.
	 * @param key the store key
	 * @param token the owner token written
	 * @param version the version that the write left the record at
	 * @param sentAt when the write was sent, from {@link #now()}
	 * @param ttl the time-to-live written
	 */
	public void wrote(String key, String token, long version, long sentAt, Duration ttl) {
		record(key, new Sighting(token, version, sentAt, ttl.toNanos(), true));
	}

	/**
	 * Judge a holder's record that a read found, and remember it.
	 * @param key the store key
	 * @param token the owner token in the record
	 * @param version the record's version, which the store changes with every write
	 * @param ttl the time-to-live in the record
	 * @return how long, in nanoseconds, until the record may be taken over; zero or less
	 * when it has stayed unchanged for its whole time-to-live (counted from when it was
	 * sent, if this JVM wrote it), and a write conditioned on {@code version} may take it
	 * over
	 */
	public long remaining(String key, String token, long version, Duration ttl) {
		long now = now();
		Sighting seen = this.sightings.get(key);
		if (seen != null && seen.isOf(token, version)) {
			return seen.since + seen.ttl - now;
		}
		long nanos = ttl.toNanos();
		record(key, new Sighting(token, version, now, nanos, false));
		return nanos;
	}

	/**
	 * Return how long the lock that this JVM wrote as {@code token}, leaving its record
	 * at {@code version}, has left by its own count, without reading the store.
	 * @param key the store key
	 * @param token the owner token
	 * @param version the record's version
	 * @return the nanoseconds left, zero or less once its time-to-live passed, or
	 * {@code null} if this JVM's last write of the key was not that one
	 */
	public @Nullable Long ownRemaining(String key, String token, long version) {
		Sighting seen = this.sightings.get(key);
		if (seen == null || !seen.own || !seen.isOf(token, version)) {
			return null;
		}
		return seen.since + seen.ttl - now();
	}

	/**
	 * Return the version of the record that this JVM last wrote as {@code token} if that
	 * write has outlived its time-to-live by its own count: anyone may take that record
	 * over, so its holder must no longer extend it or count it held. A later write with
	 * the same token (a renewal on another instance) has another version and is not
	 * outlived by this count.
	 * @param key the store key
	 * @param token the owner token
	 * @return the version, or {@code null} if this JVM holds no such write
	 */
	public @Nullable Long outlivedVersion(String key, String token) {
		Sighting seen = this.sightings.get(key);
		if (seen == null || !seen.own || !seen.token.equals(token) || seen.since + seen.ttl - now() > 0) {
			return null;
		}
		return seen.version;
	}

	/**
	 * Forget what was seen of {@code key}: its record was deleted, or taken over.
	 * @param key the store key
	 */
	public void forget(String key) {
		this.sightings.remove(key);
	}

	/**
	 * Forget what was seen of {@code key} if it was {@code token}'s record.
	 * @param key the store key
	 * @param token the owner token
	 */
	public void forget(String key, String token) {
		this.sightings.computeIfPresent(key, (ignored, seen) -> seen.token.equals(token) ? null : seen);
	}

	/** Return the number of keys whose sightings are kept. */
	int size() {
		return this.sightings.size();
	}

	/** Return whether a sighting of {@code key} is kept. */
	boolean isKept(String key) {
		return this.sightings.containsKey(key);
	}

	private void record(String key, Sighting sighting) {
		if (this.sightings.size() >= this.maxEntries && !this.sightings.containsKey(key)) {
			evict();
		}
		this.sightings.put(key, sighting);
	}

	/**
	 * Make room: first the sightings whose time-to-live passed long ago (their record was
	 * most likely deleted or taken over), then others drawn at random, sightings of other
	 * holders before this JVM's own writes, until a tenth of the room is free. Drawn at
	 * random, so that above the bound no key is always the one forgotten, which would
	 * keep its holder's silence from ever being counted out.
	 */
	private void evict() {
		long now = now();
		int target = this.maxEntries - Math.max(1, this.maxEntries / 10);
		this.sightings.values().removeIf((seen) -> now - (seen.since + 2 * seen.ttl) > 0);
		dropAtRandom(target, false);
		dropAtRandom(target, true);
	}

	private void dropAtRandom(int target, boolean own) {
		int excess = this.sightings.size() - target;
		if (excess <= 0) {
			return;
		}
		List<String> candidates = new ArrayList<>();
		this.sightings.forEach((key, seen) -> {
			if (seen.own == own) {
				candidates.add(key);
			}
		});
		Collections.shuffle(candidates, ThreadLocalRandom.current());
		for (int i = 0; i < Math.min(excess, candidates.size()); i++) {
			this.sightings.remove(candidates.get(i));
		}
	}

	/**
	 * A holder's record as this JVM saw or wrote it.
	 *
	 * @param token the owner token
	 * @param version the record's version, as read or as this JVM's write left it
	 * @param since when it was first seen, or when this JVM sent the write
	 * @param ttl the record's time-to-live, in nanoseconds
	 * @param own whether this JVM wrote it
	 */
	private record Sighting(String token, long version, long since, long ttl, boolean own) {

		/**
		 * Whether a record read now is this one: the same token and the same version. A
		 * record with this JVM's token at another version was written since by someone
		 * else holding that token, or by an extension of this JVM whose answer was lost;
		 * either way it is counted from now, which is no earlier than it was sent.
		 */
		boolean isOf(String owner, long seenVersion) {
			return this.token.equals(owner) && this.version == seenVersion;
		}

	}

}
