package dev.lockstarter.interceptor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockOperations;

/**
 * Reads of the result kept for a key, shared by the single-flight followers of this
 * instance that one release wakes together. The first follower woken sends the read; each
 * follower that had arrived before it was sent takes its answer instead of sending its
 * own, so that a crowd costs the store one read per instance rather than one per caller.
 * A follower that arrived after a read was sent does not take that read's answer (it may
 * predate a result the follower has already seen), and sends one of its own.
 */
final class KeptResultReads {

	private final ConcurrentHashMap<String, Read> inFlight = new ConcurrentHashMap<>();

	/**
	 * The bytes kept for {@code key}, read after {@code arrivedAt}.
	 * @param locks the operations to read with
	 * @param key the lock key
	 * @param arrivedAt when the caller's first read had been answered
	 * ({@link System#nanoTime()})
	 * @return the bytes kept, {@code null} if there are none
	 * @throws dev.lockstarter.store.LockStoreException if the store cannot be read
	 */
	byte @Nullable [] read(LockOperations locks, String key, long arrivedAt) {
		while (true) {
			Read current = this.inFlight.get(key);
			if (current != null && current.sentAt - arrivedAt > 0) {
				return current.answer();
			}
			Read mine = new Read(System.nanoTime());
			boolean published = (current != null) ? this.inFlight.replace(key, current, mine)
					: this.inFlight.putIfAbsent(key, mine) == null;
			if (published) {
				return mine.send(locks, key, this.inFlight);
			}
		}
	}

	/** One read in flight; {@link #sentAt} is taken before it is published. */
	private static final class Read extends CompletableFuture<byte @Nullable []> {

		final long sentAt;

		Read(long sentAt) {
			this.sentAt = sentAt;
		}

		byte @Nullable [] send(LockOperations locks, String key, ConcurrentHashMap<String, Read> inFlight) {
			try {
				byte[] bytes = locks.findResult(key).orElse(null);
				complete(bytes);
				return bytes;
			}
			catch (RuntimeException | Error ex) {
				completeExceptionally(ex);
				throw ex;
			}
			finally {
				inFlight.remove(key, this);
			}
		}

		byte @Nullable [] answer() {
			try {
				return join();
			}
			catch (CompletionException ex) {
				if (ex.getCause() instanceof RuntimeException failure) {
					throw failure;
				}
				if (ex.getCause() instanceof Error error) {
					throw error;
				}
				throw ex;
			}
		}

	}

}
