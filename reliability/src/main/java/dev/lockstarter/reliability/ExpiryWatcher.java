package dev.lockstarter.reliability;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The watcher of a {@link ScenarioRun} on Redis: reads the {@code PTTL} of every lock key
 * every {@value #INTERVAL_MILLIS} ms (in one script, or one command per key on a Redis
 * Cluster, where the keys lie in several slots). A key without expiry is counted, and one
 * that stays so for more than five times the time-to-live with no section entered on it
 * meanwhile is a liveness violation (the lock blocks forever). A scenario that asks for
 * it has every worker killed at the first such key, and again at the next once none is
 * left.
 */
final class ExpiryWatcher {

	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> PTTLS = RedisScript.of("""
			local ttls = {}
			for i = 1, #KEYS do
			  ttls[i] = redis.call('PTTL', KEYS[i])
			end
			return ttls
			""", List.class);

	static final long INTERVAL_MILLIS = 20;

	private final StringRedisTemplate lockRedis;

	private final boolean cluster;

	private final List<String> keys;

	private final List<String> storeKeys;

	private final Duration ttl;

	private final Oracle oracle;

	private final @Nullable Runnable crash;

	private volatile long locksWithoutExpirySeen;

	private final List<String> livenessViolations = new CopyOnWriteArrayList<>();

	/**
	 * @param lockRedis the lock store
	 * @param cluster whether it is a Redis Cluster
	 * @param keys the workers' keys, as the oracle names them
	 * @param storeKeys the same keys in the store, in the same order
	 * @param ttl the locks' time-to-live
	 * @param oracle where sections are recorded
	 * @param crash what kills every worker at a lock without expiry, {@code null} for
	 * nothing
	 */
	ExpiryWatcher(StringRedisTemplate lockRedis, boolean cluster, List<String> keys, List<String> storeKeys,
			Duration ttl, Oracle oracle, @Nullable Runnable crash) {
		this.lockRedis = lockRedis;
		this.cluster = cluster;
		this.keys = List.copyOf(keys);
		this.storeKeys = List.copyOf(storeKeys);
		this.ttl = ttl;
		this.oracle = oracle;
		this.crash = crash;
	}

	long locksWithoutExpirySeen() {
		return this.locksWithoutExpirySeen;
	}

	List<String> livenessViolations() {
		return this.livenessViolations;
	}

	/** Watch while the scenario runs. */
	void watch(BooleanSupplier running) {
		int count = this.storeKeys.size();
		long[] since = new long[count];
		long[] enteredSince = new long[count];
		boolean[] reported = new boolean[count];
		Runnable crash = this.crash;
		boolean armed = crash != null;
		while (running.getAsBoolean()) {
			try {
				Thread.sleep(INTERVAL_MILLIS);
				List<?> ttls = this.cluster ? pttlsOneByOne() : this.lockRedis.execute(PTTLS, this.storeKeys);
				for (int i = 0; ttls != null && i < count; i++) {
					if (((Number) ttls.get(i)).longValue() != -1) {
						since[i] = 0;
						continue;
					}
					long now = System.nanoTime();
					String key = this.keys.get(i);
					if (since[i] == 0) {
						since[i] = now;
						enteredSince[i] = this.oracle.entered(key);
						this.locksWithoutExpirySeen++;
						if (armed && crash != null) {
							armed = false;
							crash.run();
						}
					}
					else if (!reported[i] && now - since[i] > this.ttl.multipliedBy(5).toNanos()
							&& this.oracle.entered(key) == enteredSince[i]) {
						reported[i] = true;
						this.livenessViolations.add("lock on '" + key + "' without expiry for "
								+ TimeUnit.NANOSECONDS.toMillis(now - since[i]) + " ms, no section entered meanwhile");
					}
				}
				if (crash != null && !armed && noneWithoutExpiry(since) && this.livenessViolations.isEmpty()) {
					// The crash came after the expiry was set: try again on the next
					// sighting
					armed = true;
				}
			}
			catch (InterruptedException ex) {
				return;
			}
			catch (RuntimeException ex) {
				// The lock Redis is restarting
			}
		}
	}

	/**
	 * Read the {@code PTTL} of every key, one command each: on a Redis Cluster, a script
	 * may only touch keys of one hash slot, and the lock keys spread over every master.
	 */
	private List<Long> pttlsOneByOne() {
		List<Long> ttls = new ArrayList<>(this.storeKeys.size());
		for (String key : this.storeKeys) {
			byte[] raw = key.getBytes(StandardCharsets.UTF_8);
			Long ttl = this.lockRedis.execute((RedisCallback<Long>) (connection) -> connection.keyCommands().pTtl(raw));
			ttls.add((ttl != null) ? ttl : -2L);
		}
		return ttls;
	}

	private static boolean noneWithoutExpiry(long[] since) {
		for (long at : since) {
			if (at != 0) {
				return false;
			}
		}
		return true;
	}

}
