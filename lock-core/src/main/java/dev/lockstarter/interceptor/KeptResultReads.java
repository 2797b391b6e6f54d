package dev.lockstarter.interceptor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.LockResults;
import dev.lockstarter.core.ReactiveLockResults;

/**
 * Reads of the result kept for a key, shared by the single-flight followers of this
 * instance that one release wakes together. The first follower woken sends the read; each
 * follower that had arrived before it was sent takes its answer instead of sending its
 * own, so that a crowd costs the store one read per instance rather than one per caller.
 * A follower that arrived after a read was sent does not take that read's answer (it may
 * predate a result the follower has already seen), and sends one of its own. Blocking and
 * reactive followers each have their own reads.
 */
final class KeptResultReads {

	private final ConcurrentHashMap<String, Read> inFlight = new ConcurrentHashMap<>();

	private final ConcurrentHashMap<String, Read> inFlightReactive = new ConcurrentHashMap<>();

	/**
	 * The bytes kept for {@code key}, read after {@code arrivedAt}.
	 * @param results the results to read
	 * @param key the lock key
	 * @param arrivedAt when the caller's first read had been answered
	 * ({@link System#nanoTime()})
	 * @return the bytes kept, {@code null} if there are none
	 * @throws dev.lockstarter.store.LockStoreException if the store cannot be read
	 */
	byte @Nullable [] read(LockResults results, String key, long arrivedAt) {
		Claim claim = claim(this.inFlight, key, arrivedAt);
		return claim.send() ? claim.read().send(results, key, this.inFlight) : claim.read().answer();
	}

	/**
	 * The bytes kept for {@code key}, read after {@code arrivedAt}, without blocking. The
	 * read is sent when the first caller subscribes, and runs to its end even if that
	 * caller cancels, so that the others get its answer.
	 * @param results the results to read
	 * @param key the lock key
	 * @param arrivedAt when the caller's first read had been answered
	 * ({@link System#nanoTime()})
	 * @return the bytes kept, empty if there are none; a
	 * {@link dev.lockstarter.store.LockStoreException} if the store cannot be read
	 */
	Mono<byte[]> readReactive(ReactiveLockResults results, String key, long arrivedAt) {
		return Mono.defer(() -> {
			Claim claim = claim(this.inFlightReactive, key, arrivedAt);
			Read read = claim.read();
			if (claim.send()) {
				// Deferred, so that even a call that throws completes the read
				Mono.defer(() -> results.findResult(key))
					.doFinally((signal) -> this.inFlightReactive.remove(key, read))
					.subscribe(read::complete, read::completeExceptionally, () -> read.complete(null));
			}
			return Mono.fromFuture(read, true);
		});
	}

	/**
	 * The read in flight that a caller who arrived at {@code arrivedAt} may take, or else
	 * a new one, published in place of any older one, that the caller must send.
	 */
	private static Claim claim(ConcurrentHashMap<String, Read> inFlight, String key, long arrivedAt) {
		while (true) {
			Read current = inFlight.get(key);
			if (current != null && current.sentAt - arrivedAt > 0) {
				return new Claim(current, false);
			}
			Read mine = new Read(System.nanoTime());
			boolean published = (current != null) ? inFlight.replace(key, current, mine)
					: inFlight.putIfAbsent(key, mine) == null;
			if (published) {
				return new Claim(mine, true);
			}
		}
	}

	/** A read to take the answer of, or to {@code send}. */
	private record Claim(Read read, boolean send) {

	}

	/** One read in flight; {@link #sentAt} is taken before it is published. */
	private static final class Read extends CompletableFuture<byte @Nullable []> {

		final long sentAt;

		Read(long sentAt) {
			this.sentAt = sentAt;
		}

		byte @Nullable [] send(LockResults results, String key, ConcurrentHashMap<String, Read> inFlight) {
			try {
				byte[] bytes = results.findResult(key).orElse(null);
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
