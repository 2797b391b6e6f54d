package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.List;

import dev.lockstarter.core.LockStoreException;
import dev.lockstarter.store.AcquireResult;
import dev.lockstarter.store.LockStore;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * {@link LockStore} on Redis, through Spring Data Redis.
 * <p>
 * A lock is a string key whose value is the owner token, with a millisecond expiry
 * ({@code PX}). Each operation is one Lua script, sent as {@code EVALSHA} (falling back to
 * {@code EVAL} once after a script cache flush), so each costs exactly one round trip:
 * <ul>
 * <li>acquire: {@code SET key token NX PX ttl}; when the key is taken, the same script answers
 * the holder's {@code PTTL}, so a rejected caller learns when to retry without a second round
 * trip;</li>
 * <li>release: compare-and-delete, {@code DEL} only if the value is the caller's token;</li>
 * <li>extend: compare-and-extend, {@code PEXPIRE} only if the value is the caller's token.</li>
 * </ul>
 * Keys and tokens travel only as {@code KEYS} and {@code ARGV}, never inside script text.
 * <p>
 * Guarantees hold while Redis keeps its data: one primary, no failover that loses
 * acknowledged writes, and a {@code maxmemory-policy} of {@code noeviction}. Expiry is
 * decided by the Redis server's clock with millisecond precision. The time a call may block is
 * bounded by the connection factory's command timeout ({@code spring.data.redis.timeout}).
 *
 * @since 0.1.0
 */
public class RedisLockStore implements LockStore {

	/** Returns -1 when acquired, else the holder's PTTL in ms (0 when the key has no expiry). */
	static final RedisScript<Long> ACQUIRE = RedisScript.of("""
			if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			  return -1
			end
			local ttl = redis.call('PTTL', KEYS[1])
			if ttl < 0 then
			  return 0
			end
			return ttl
			""", Long.class);

	/** Returns 1 when the caller's lock was deleted, else 0. */
	static final RedisScript<Long> RELEASE = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  return redis.call('DEL', KEYS[1])
			end
			return 0
			""", Long.class);

	/** Returns 1 when the caller's lock was extended, else 0. */
	static final RedisScript<Long> EXTEND = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
			end
			return 0
			""", Long.class);

	private final StringRedisTemplate redis;

	/**
	 * Create a store on the given connection factory.
	 * @param connectionFactory the Redis connection factory
	 */
	public RedisLockStore(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		this.redis = new StringRedisTemplate(connectionFactory);
	}

	@Override
	public AcquireResult tryAcquire(String key, String token, Duration ttl) {
		Long answer = run("acquire", key, ACQUIRE, token, millis(ttl));
		if (answer != null && answer == -1L) {
			return AcquireResult.acquired();
		}
		return AcquireResult.held(Duration.ofMillis((answer != null) ? answer : 0L));
	}

	@Override
	public boolean release(String key, String token) {
		Long answer = run("release", key, RELEASE, token);
		return answer != null && answer == 1L;
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		Long answer = run("extend", key, EXTEND, token, millis(ttl));
		return answer != null && answer == 1L;
	}

	private Long run(String operation, String key, RedisScript<Long> script, String... args) {
		try {
			return this.redis.execute(script, List.of(key), (Object[]) args);
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "Redis lock store failed to " + operation + " lock '" + key + "'", ex);
		}
	}

	private static String millis(Duration ttl) {
		return Long.toString(Math.max(1, ttl.toMillis()));
	}

}
