package dev.lockstarter.store.zookeeper;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

/**
 * The lock nodes that this store last wrote as their holder: for each key, the owner
 * token and the node's data version and {@code mzxid} after that write. A release then
 * writes "free" on condition that the node is still as that write left it
 * ({@link LockNodeWrites}), at once, without reading the node first.
 * <p>
 * This is safe because every write of a lock node is conditioned on what its writer read
 * and none leaves a node at the version {@code -1}: a write conditioned on the version
 * this store produced applies only if no one wrote the node since (a version comes back
 * only after some 2³² writes of the key), which means that it still holds this store's
 * data. Whether the lock still runs is not kept here but in the store's
 * {@link dev.lockstarter.store.ObservedExpiry}, which counts the time-to-live of this
 * store's own writes from when they were sent, on the monotonic clock: a lock that
 * outlived its time-to-live is never released from here (the store reads the node, as it
 * would without this record). A key has one entry, that of its latest holder in this JVM;
 * an entry goes at the release. Past {@link #MAX_ENTRIES} held locks, new ones are not
 * recorded and their release reads the node first.
 */
final class OwnWrites {

	static final int MAX_ENTRIES = 65_536;

	private final Map<String, Write> writes = new ConcurrentHashMap<>();

	/**
	 * Record that this store wrote {@code key}'s lock node as the holder {@code token},
	 * leaving it at {@code version} and {@code mzxid}.
	 */
	void wrote(String key, String token, int version, long mzxid) {
		if (this.writes.size() < MAX_ENTRIES || this.writes.containsKey(key)) {
			this.writes.put(key, new Write(token, version, mzxid));
		}
	}

	/**
	 * Remove and return the record of {@code key}'s node if {@code token} wrote it last.
	 * @return the record, or {@code null} if the node must be read first
	 */
	@Nullable Write take(String key, String token) {
		Write write = this.writes.get(key);
		if (write == null || !write.token().equals(token)) {
			return null;
		}
		this.writes.remove(key, write);
		return write;
	}

	/**
	 * Forget {@code key}'s record if it is {@code token}'s.
	 */
	void forget(String key, String token) {
		this.writes.computeIfPresent(key, (ignored, write) -> write.token().equals(token) ? null : write);
	}

	/**
	 * A write of a lock node by its holder.
	 *
	 * @param token the owner token written
	 * @param version the node's data version after the write
	 * @param mzxid the node's {@code mzxid} after the write: the write's zxid
	 */
	record Write(String token, int version, long mzxid) {
	}

}
