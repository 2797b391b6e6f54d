package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts of the Redis lock store, each one atomic step on the keys of one hash
 * slot, with what it answers. Keys and tokens travel only as {@code KEYS} and
 * {@code ARGV}, never inside the script text. A lock's value is its owner's token,
 * followed by {@link #WATCHED} once a waiter of some JVM listens for its release; every
 * owner check accepts the token with or without that mark.
 * <p>
 * A script answers a {@code Long} or a {@code List} (a Lua table, which a {@code nil}
 * ends). An acquire script answers 0 or a positive fencing token when it took the lock,
 * and {@code -(PTTL) - 1} of the holder's key when it found the lock held (so -1 for a
 * key without expiry).
 */
final class RedisLockScripts {

	/** How long a fencing counter is kept after its last draw. */
	static final int FENCE_RETENTION_HOURS = 24;

	/** {@link #FENCE_RETENTION_HOURS} in milliseconds, as a script argument. */
	static final String FENCE_RETENTION_MILLIS = Long.toString(Duration.ofHours(FENCE_RETENTION_HOURS).toMillis());

	/**
	 * The suffix a waiter appends to a holder's value, in the script that finds the lock
	 * held: the release of a value that ends with it is announced. Owner tokens are
	 * Base64 URL-encoded, so they never end with it themselves.
	 */
	static final String WATCHED = "!";

	/**
	 * The part of a script that found the lock held: marks the holder's value as watched
	 * when ARGV[3] is {@code 1} (a waiter of this JVM listens for its release), and
	 * leaves {@code -(PTTL) - 1} in {@code held}, so -1 when the holder's key has no
	 * expiry.
	 */
	private static final String HELD_VALUE = """
			local ttl = redis.call('PTTL', KEYS[1])
			if ARGV[3] == '1' then
			  local holder = redis.call('GET', KEYS[1])
			  if holder and string.sub(holder, -1) ~= '!' then
			    redis.call('APPEND', KEYS[1], '!')
			  end
			end
			if ttl < 0 then
			  ttl = 0
			end
			local held = -ttl - 1
			""";

	/** The end of a script that found the lock held: {@link #HELD_VALUE}, returned. */
	private static final String HELD = HELD_VALUE + "return held\n";

	/**
	 * Draws the next fencing token from the counter given as the first {@code %1$s},
	 * raised to the Redis server's clock in microseconds if it is behind, and keeps the
	 * counter for the retention given as {@code %2$s}; leaves the token in {@code fence}.
	 * The clock is the reply of {@code TIME} in the variable named by {@code %3$s}: a
	 * script that read the time already passes its own, others {@link #DRAW} it.
	 */
	static final String DRAW_AT = """
			local fence = redis.call('INCR', %1$s)
			local floor = tonumber(%3$s[1] .. string.format('%%06d', tonumber(%3$s[2])))
			if fence < floor then
			  redis.call('SET', %1$s, floor, 'PX', %2$s)
			  fence = floor
			else
			  redis.call('PEXPIRE', %1$s, %2$s)
			end
			""";

	/** {@link #DRAW_AT}, reading the clock first. */
	static final String DRAW = "local clock = redis.call('TIME')\n" + DRAW_AT.replace("%3$s", "clock");

	/**
	 * ARGV[1] is the token, ARGV[2] the TTL, ARGV[3] {@code 1} to watch a held lock.
	 * Acquired: returns 0 (no fencing token drawn). Held: see {@link #HELD}.
	 */
	static final RedisScript<Long> ACQUIRE = RedisScript.of("""
			if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			  return 0
			end
			""" + HELD, Long.class);

	/**
	 * {@link #ACQUIRE} that also draws the fencing token from the counter KEYS[2], kept
	 * for ARGV[4] milliseconds. Acquired: returns the fencing token (positive).
	 */
	static final RedisScript<Long> ACQUIRE_FENCED = RedisScript.of("""
			if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			""" + DRAW.formatted("KEYS[2]", "ARGV[4]") + """
			  return fence
			end
			""" + HELD, Long.class);

	/**
	 * Draws the fencing token of the lock KEYS[1] if ARGV[1] holds it, from the counter
	 * KEYS[2] kept for ARGV[2] milliseconds; returns it, or 0 when not held.
	 */
	static final RedisScript<Long> FENCE = RedisScript.of("""
			local holder = redis.call('GET', KEYS[1])
			if holder ~= ARGV[1] and holder ~= ARGV[1] .. '!' then
			  return 0
			end
			""" + DRAW.formatted("KEYS[2]", "ARGV[2]") + """
			return fence
			""", Long.class);

	/**
	 * Compare-and-delete. ARGV[1] is the token, ARGV[2] the channel, ARGV[3] {@code 1} to
	 * announce by {@code SPUBLISH} (the lock's sharded channel, in its slot; by
	 * {@code pcall}, so that a server without sharded pub/sub, Redis 6, still releases),
	 * else by {@code PUBLISH}. Only a lock that a waiter watched is announced. Returns 1
	 * when the caller's lock was deleted, else 0.
	 */
	static final RedisScript<Long> RELEASE = RedisScript.of("""
			local holder = redis.call('GET', KEYS[1])
			if holder == ARGV[1] then
			  redis.call('DEL', KEYS[1])
			  return 1
			end
			if holder == ARGV[1] .. '!' then
			  redis.call('DEL', KEYS[1])
			  if ARGV[3] == '1' then
			    redis.pcall('SPUBLISH', ARGV[2], KEYS[1])
			  else
			    redis.call('PUBLISH', ARGV[2], KEYS[1])
			  end
			  return 1
			end
			return 0
			""", Long.class);

	/** Returns 1 when the caller's lock was extended, else 0. */
	static final RedisScript<Long> EXTEND = RedisScript.of("""
			local holder = redis.call('GET', KEYS[1])
			if holder == ARGV[1] or holder == ARGV[1] .. '!' then
			  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
			end
			return 0
			""", Long.class);

	/**
	 * Returns the lock's {@code PTTL} in milliseconds, whoever holds it, or 0 when the
	 * key does not exist (or has no expiry, which no lock of this store lacks).
	 */
	static final RedisScript<Long> TIME_TO_EXPIRY = RedisScript.of("""
			local ttl = redis.call('PTTL', KEYS[1])
			if ttl < 0 then
			  return 0
			end
			return ttl
			""", Long.class);

	/** Returns 1 when the caller holds the lock and its result is stored, else 0. */
	static final RedisScript<Long> PUT_RESULT = RedisScript.of("""
			local holder = redis.call('GET', KEYS[1])
			if holder == ARGV[1] or holder == ARGV[1] .. '!' then
			  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
			  return 1
			end
			return 0
			""", Long.class);

	/**
	 * {@link #ACQUIRE} on KEYS[1] that also reads the result KEYS[2], whoever holds the
	 * lock: returns {@code {answer of ACQUIRE, result or nil}}.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> ACQUIRE_READING = RedisScript.of("""
			local kept = redis.call('GET', KEYS[2])
			if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			  return {0, kept}
			end
			""" + HELD_VALUE + """
			return {held, kept}
			""", List.class);

	/**
	 * {@link #PUT_RESULT} and {@link #RELEASE} in one: if KEYS[1] is held by ARGV[1],
	 * keeps ARGV[4] in KEYS[2] for ARGV[5] ms, deletes the lock and announces a watched
	 * release on ARGV[2] (sharded when ARGV[3] is {@code 1}); returns 1, else 0.
	 */
	static final RedisScript<Long> RELEASE_KEEPING = RedisScript.of("""
			local holder = redis.call('GET', KEYS[1])
			if holder ~= ARGV[1] and holder ~= ARGV[1] .. '!' then
			  return 0
			end
			redis.call('SET', KEYS[2], ARGV[4], 'PX', ARGV[5])
			redis.call('DEL', KEYS[1])
			if holder ~= ARGV[1] then
			  if ARGV[3] == '1' then
			    redis.pcall('SPUBLISH', ARGV[2], KEYS[1])
			  else
			    redis.call('PUBLISH', ARGV[2], KEYS[1])
			  end
			end
			return 1
			""", Long.class);

	/**
	 * ARGV[1] is the TTL, ARGV[i + 1] the token of KEYS[i]; returns 1 or 0 for each key.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> EXTEND_ALL = RedisScript.of("""
			local extended = {}
			for i = 1, #KEYS do
			  local holder = redis.call('GET', KEYS[i])
			  if holder == ARGV[i + 1] or holder == ARGV[i + 1] .. '!' then
			    extended[i] = redis.call('PEXPIRE', KEYS[i], ARGV[1])
			  else
			    extended[i] = 0
			  end
			end
			return extended
			""", List.class);

	/**
	 * The locks of several keys in one slot, all or none, without fencing tokens (drawn
	 * on demand, by {@link #FENCE}). KEYS are the lock keys; ARGV[1] is the token,
	 * ARGV[2] the TTL, ARGV[3] {@code 1} to watch the key found held. Returns {@code {0}}
	 * when every key was acquired, else {@code {i, PTTL}} for the first key {@code i}
	 * found held, having changed nothing else.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> ACQUIRE_ALL = RedisScript.of("""
			for i = 1, #KEYS do
			  local ttl = redis.call('PTTL', KEYS[i])
			  if ttl ~= -2 then
			    if ARGV[3] == '1' then
			      local holder = redis.call('GET', KEYS[i])
			      if holder and string.sub(holder, -1) ~= '!' then
			        redis.call('APPEND', KEYS[i], '!')
			      end
			    end
			    if ttl < 0 then
			      ttl = 0
			    end
			    return {i, ttl}
			  end
			end
			for i = 1, #KEYS do
			  redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
			end
			return {0}
			""", List.class);

	/**
	 * Compare-and-delete of several locks of one slot, each announced on its channel if a
	 * waiter watched it. ARGV[1] is the token, ARGV[2] {@code 1} to announce by
	 * {@code SPUBLISH}, else {@code PUBLISH}, ARGV[i + 2] the channel of KEYS[i]; returns
	 * 1 or 0 for each key.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> RELEASE_ALL = RedisScript.of("""
			local released = {}
			for i = 1, #KEYS do
			  local holder = redis.call('GET', KEYS[i])
			  if holder == ARGV[1] then
			    redis.call('DEL', KEYS[i])
			    released[i] = 1
			  elseif holder == ARGV[1] .. '!' then
			    redis.call('DEL', KEYS[i])
			    if ARGV[2] == '1' then
			      redis.pcall('SPUBLISH', ARGV[i + 2], KEYS[i])
			    else
			      redis.call('PUBLISH', ARGV[i + 2], KEYS[i])
			    end
			    released[i] = 1
			  else
			    released[i] = 0
			  end
			end
			return released
			""", List.class);

	/**
	 * Reads locks for a listing, whoever holds them. Returns two values per key: the
	 * lock's value ({@code ''} when the key is not a string, so not a lock, or is gone)
	 * and its {@code PTTL}.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> READ_LOCKS = RedisScript.of("""
			local read = {}
			for i = 1, #KEYS do
			  local value = ''
			  local ttl = -2
			  if redis.call('TYPE', KEYS[i]).ok == 'string' then
			    value = redis.call('GET', KEYS[i])
			    ttl = redis.call('PTTL', KEYS[i])
			  end
			  read[#read + 1] = value
			  read[#read + 1] = ttl
			end
			return read
			""", List.class);

	/**
	 * One page of {@code SCAN} on the node that serves KEYS[1], a key that is not read
	 * but routes the script: ARGV[1] is the cursor, ARGV[2] the {@code MATCH} pattern,
	 * ARGV[3] the {@code COUNT}. Returns {@code SCAN}'s answer: the next cursor and the
	 * page's keys.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> SCAN_PAGE = RedisScript.of("""
			return redis.call('SCAN', ARGV[1], 'MATCH', ARGV[2], 'COUNT', ARGV[3])
			""", List.class);

	/**
	 * Deletes the lock KEYS[1] whoever holds it, and announces its release as
	 * {@link #RELEASE} does: on the channel ARGV[1], by {@code SPUBLISH} when ARGV[2] is
	 * {@code 1}, else {@code PUBLISH}, only if a waiter watched it. A key that is not a
	 * string is no lock, and is left alone. Returns 1 when a lock was deleted, else 0.
	 */
	static final RedisScript<Long> FORCE_RELEASE = RedisScript.of("""
			if redis.call('TYPE', KEYS[1]).ok ~= 'string' then
			  return 0
			end
			local holder = redis.call('GET', KEYS[1])
			redis.call('DEL', KEYS[1])
			if string.sub(holder, -1) == '!' then
			  if ARGV[2] == '1' then
			    redis.pcall('SPUBLISH', ARGV[1], KEYS[1])
			  else
			    redis.call('PUBLISH', ARGV[1], KEYS[1])
			  end
			end
			return 1
			""", Long.class);

	private RedisLockScripts() {
	}

	/**
	 * Read the answer of an acquire script.
	 * @param answer the answer, {@code null} if none
	 * @return acquired (with the fencing token when positive) or held (with the holder's
	 * remaining time); no answer reads as held, with no time left
	 */
	static AcquireReply acquireReply(@Nullable Long answer) {
		long value = (answer != null) ? answer : -1L;
		if (value > 0) {
			return AcquireReply.acquired(value);
		}
		if (value == 0) {
			return AcquireReply.acquired();
		}
		return AcquireReply.held(Duration.ofMillis(-value - 1));
	}

	/**
	 * Return a time-to-live as the scripts take it: whole milliseconds, at least 1.
	 * @param ttl the time-to-live
	 * @return the milliseconds
	 */
	static String millis(Duration ttl) {
		return Long.toString(Math.max(1, ttl.toMillis()));
	}

}
