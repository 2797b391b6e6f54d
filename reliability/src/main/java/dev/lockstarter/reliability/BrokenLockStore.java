package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A Redis {@link LockStore} with one classic, deliberate flaw, for the negative controls:
 * the harness must find each of them broken. Everything but the flaw is done right
 * (acquire by {@code SET NX PX}, release by compare-and-delete, owner-checked extension).
 * Issues no fencing tokens.
 * <p>
 * {@link Flaw#WALL_CLOCK_EXPIRY} judges expiry by the clients' wall clocks, as the etcd,
 * ZooKeeper, Memcached and DynamoDB stores once did: the value is the owner's token and
 * the time its lock expires on the owner's wall clock ({@code now + ttl}), and a
 * contender takes over a lock whose expiry is before its own {@code now}, atomically in
 * one script with {@code now} passed as an argument. The Redis key's own expiry is a
 * generous {@value #WALL_CLOCK_KEY_TTLS} × TTL, only so that an abandoned key goes away:
 * it never decides anything while the clocks are within a few TTL of each other.
 */
final class BrokenLockStore implements LockStore {

	/**
	 * Time between the two steps of a non-atomic operation: the time a slow network or a
	 * short GC pause takes. It widens the race window; the flaw is the same without it.
	 */
	static final Duration STEP_GAP = Duration.ofMillis(20);

	private static final RedisScript<Long> RELEASE = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  return redis.call('DEL', KEYS[1])
			end
			return 0
			""", Long.class);

	private static final RedisScript<Long> EXTEND = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
			end
			return 0
			""", Long.class);

	/**
	 * The Redis key's own expiry under {@link Flaw#WALL_CLOCK_EXPIRY}, in times the TTL.
	 */
	static final int WALL_CLOCK_KEY_TTLS = 10;

	/**
	 * KEYS[1] the lock; ARGV the token, the caller's wall clock now, the expiry to write
	 * (now + TTL), the Redis key's expiry in ms. Returns -1 if acquired, else how long
	 * the lock has left by the caller's clock.
	 */
	private static final RedisScript<Long> WALL_CLOCK_ACQUIRE = RedisScript.of("""
			local value = redis.call('GET', KEYS[1])
			if value then
			  local expires = tonumber(string.match(value, ' (%d+)$'))
			  if expires and expires >= tonumber(ARGV[2]) then
			    return expires - tonumber(ARGV[2])
			  end
			end
			redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[3], 'PX', ARGV[4])
			return -1
			""", Long.class);

	/** KEYS[1] the lock; ARGV the token, the new expiry, the Redis key's expiry in ms. */
	private static final RedisScript<Long> WALL_CLOCK_EXTEND = RedisScript.of("""
			local value = redis.call('GET', KEYS[1])
			if value and string.sub(value, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then
			  redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[3])
			  return 1
			end
			return 0
			""", Long.class);

	private static final RedisScript<Long> WALL_CLOCK_RELEASE = RedisScript.of("""
			local value = redis.call('GET', KEYS[1])
			if value and string.sub(value, 1, #ARGV[1] + 1) == ARGV[1] .. ' ' then
			  return redis.call('DEL', KEYS[1])
			end
			return 0
			""", Long.class);

	private final Flaw flaw;

	private final StringRedisTemplate redis;

	BrokenLockStore(Flaw flaw, StringRedisTemplate redis) {
		this.flaw = flaw;
		this.redis = redis;
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		if (this.flaw == Flaw.WALL_CLOCK_EXPIRY) {
			long now = System.currentTimeMillis();
			Long left = this.redis.execute(WALL_CLOCK_ACQUIRE, List.of(key), token, Long.toString(now),
					Long.toString(now + ttl.toMillis()), Long.toString(ttl.toMillis() * WALL_CLOCK_KEY_TTLS));
			long remaining = (left != null) ? left : ttl.toMillis();
			return (remaining == -1) ? AcquireReply.acquired() : AcquireReply.held(Duration.ofMillis(remaining));
		}
		boolean acquired;
		if (this.flaw == Flaw.SETNX_THEN_EXPIRE) {
			acquired = Boolean.TRUE.equals(this.redis.opsForValue().setIfAbsent(key, token));
			if (acquired) {
				pause();
				this.redis.expire(key, ttl.toMillis(), TimeUnit.MILLISECONDS);
			}
		}
		else {
			acquired = Boolean.TRUE.equals(this.redis.opsForValue().setIfAbsent(key, token, ttl));
		}
		if (acquired) {
			return AcquireReply.acquired();
		}
		Long remaining = this.redis.getExpire(key, TimeUnit.MILLISECONDS);
		// No expiry (-1) or gone (-2): assume a full time-to-live rather than poll hot
		return AcquireReply.held((remaining != null && remaining >= 0) ? Duration.ofMillis(remaining) : ttl);
	}

	@Override
	public boolean release(String key, String token) {
		return switch (this.flaw) {
			case PLAIN_DEL -> Boolean.TRUE.equals(this.redis.delete(key));
			case GET_THEN_DEL -> {
				if (!token.equals(this.redis.opsForValue().get(key))) {
					yield false;
				}
				pause();
				yield Boolean.TRUE.equals(this.redis.delete(key));
			}
			case SETNX_THEN_EXPIRE -> this.redis.execute(RELEASE, List.of(key), token) == 1L;
			case WALL_CLOCK_EXPIRY -> this.redis.execute(WALL_CLOCK_RELEASE, List.of(key), token) == 1L;
		};
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		if (this.flaw == Flaw.WALL_CLOCK_EXPIRY) {
			return this.redis.execute(WALL_CLOCK_EXTEND, List.of(key), token,
					Long.toString(System.currentTimeMillis() + ttl.toMillis()),
					Long.toString(ttl.toMillis() * WALL_CLOCK_KEY_TTLS)) == 1L;
		}
		return this.redis.execute(EXTEND, List.of(key), token, Long.toString(ttl.toMillis())) == 1L;
	}

	@Override
	public Duration timeToExpiry(String key) {
		if (this.flaw == Flaw.WALL_CLOCK_EXPIRY) {
			String value = this.redis.opsForValue().get(key);
			long left = (value != null)
					? Long.parseLong(value.substring(value.lastIndexOf(' ') + 1)) - System.currentTimeMillis() : 0;
			return Duration.ofMillis(Math.max(0, left));
		}
		Long millis = this.redis.getExpire(key, TimeUnit.MILLISECONDS);
		return (millis != null && millis > 0) ? Duration.ofMillis(millis) : Duration.ZERO;
	}

	private static void pause() {
		try {
			Thread.sleep(STEP_GAP.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The deliberate flaws.
	 */
	enum Flaw {

		/** Release by a plain {@code DEL}, without checking the owner. */
		PLAIN_DEL,

		/**
		 * Release by {@code GET}, compare in the client, then {@code DEL}: not atomic.
		 */
		GET_THEN_DEL,

		/**
		 * Acquire by {@code SETNX}, then {@code EXPIRE}: a crash between them leaves a
		 * lock without expiry.
		 */
		SETNX_THEN_EXPIRE,

		/**
		 * Expiry judged by the clients' wall clocks: the holder writes {@code now + ttl}
		 * by its clock, and a contender takes over once that is before its own
		 * {@code now}. A contender whose clock is ahead takes a lock while its holder
		 * works; a holder whose clock is behind writes locks that are born expired.
		 */
		WALL_CLOCK_EXPIRY

	}

}
