package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

import net.rubyeye.xmemcached.GetsResponse;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.exception.MemcachedException;
import net.rubyeye.xmemcached.transcoders.StringTranscoder;
import net.rubyeye.xmemcached.transcoders.Transcoder;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;

/**
 * The store's calls to Memcached through its client: lock items as UTF-8 text, results as
 * bytes left as they are ({@link BytesTranscoder}), each call bounded by the client's
 * operation timeout and failing with a {@link LockStoreException} that names the
 * operation and the lock.
 */
final class MemcachedCalls {

	private static final Transcoder<String> TEXT = new StringTranscoder("UTF-8");

	private static final Transcoder<byte[]> BYTES = new BytesTranscoder();

	private final MemcachedClient client;

	MemcachedCalls(MemcachedClient client) {
		this.client = client;
	}

	boolean add(String operation, String key, String memcachedKey, int expiry, String value) {
		return call(operation, key, () -> this.client.add(memcachedKey, expiry, value, TEXT, timeout()));
	}

	boolean cas(String operation, String key, String memcachedKey, int expiry, String value, long cas) {
		return call(operation, key, () -> this.client.cas(memcachedKey, expiry, value, TEXT, timeout(), cas));
	}

	boolean delete(String operation, String key, String memcachedKey, long cas) {
		return call(operation, key, () -> this.client.delete(memcachedKey, cas, timeout()));
	}

	@Nullable GetsResponse<String> gets(String operation, String key, String memcachedKey) {
		return call(operation, key, () -> this.client.gets(memcachedKey, timeout(), TEXT));
	}

	boolean setBytes(String operation, String key, String memcachedKey, int expiry, byte[] value) {
		return call(operation, key, () -> this.client.set(memcachedKey, expiry, value, BYTES, timeout()));
	}

	byte @Nullable [] getBytes(String operation, String key, String memcachedKey) {
		return call(operation, key, () -> this.client.get(memcachedKey, timeout(), BYTES));
	}

	void shutdown() throws IOException {
		this.client.shutdown();
	}

	private long timeout() {
		return this.client.getOpTimeout();
	}

	private <T> T call(String operation, String key, MemcachedCall<T> call) {
		try {
			return call.call();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw failure(operation, key, ex);
		}
		catch (TimeoutException | MemcachedException | RuntimeException ex) {
			throw failure(operation, key, ex);
		}
	}

	private static LockStoreException failure(String operation, String key, Exception cause) {
		return new LockStoreException(key, "Memcached lock store failed to " + operation + " lock '" + key + "'",
				cause);
	}

	@FunctionalInterface
	private interface MemcachedCall<T> {

		T call() throws TimeoutException, InterruptedException, MemcachedException;

	}

}
