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

	private final Flaw flaw;

	private final StringRedisTemplate redis;

	BrokenLockStore(Flaw flaw, StringRedisTemplate redis) {
		this.flaw = flaw;
		this.redis = redis;
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
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
		};
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		return this.redis.execute(EXTEND, List.of(key), token, Long.toString(ttl.toMillis())) == 1L;
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
		SETNX_THEN_EXPIRE

	}

}
