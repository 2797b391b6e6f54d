package dev.lockstarter.store.redis;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts of the store's shared locks (permits and read/write locks), each one
 * atomic step on four keys of the lock's hash slot:
 * <ol>
 * <li>the holders, a sorted set of places scored by their expiry in milliseconds of the
 * Redis server's clock, each member the place's kind ({@code p} permit, {@code r} reader,
 * {@code w} writer) followed by its owner token; the set expires with its last
 * place;</li>
 * <li>the waiting writers, a sorted set of tokens scored by the end of their wait;</li>
 * <li>the fencing counter, shared with the mutex of the same key;</li>
 * <li>the watched mark, set when a waiter of some JVM listens for a release, kept as long
 * as the holders: a release is announced only while it exists.</li>
 * </ol>
 * Every script first drops the places whose time is up, and the waits before it reads
 * them, so an expired place or wait counts for nothing whether or not Redis has removed
 * it yet. An acquire script answers as the mutex's do: a positive fencing token when
 * granted, {@code -(remaining) - 1} when refused.
 */
final class SharedLockScripts {

	/**
	 * Leaves the Redis server's time in milliseconds in {@code now}, drops expired
	 * places, and defines {@code settle()}, which makes the holders (and the watched
	 * mark) expire with the last place, or removes the mark with the last place, and
	 * {@code dropEndedWaits()}, which drops the waits whose time is up.
	 */
	private static final String PRELUDE = """
			local function settle()
			  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
			  if last[2] then
			    redis.call('PEXPIREAT', KEYS[1], last[2])
			    redis.call('PEXPIREAT', KEYS[4], last[2])
			  else
			    redis.call('DEL', KEYS[4])
			  end
			end
			local time = redis.call('TIME')
			local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
			local function dropEndedWaits()
			  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
			end
			redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
			""";

	/**
	 * Takes a place. ARGV[1] is the token, ARGV[2] the TTL, ARGV[3] {@code 1} to mark a
	 * refused key as watched, ARGV[4] the fencing counter's retention, ARGV[5] the kind
	 * ({@code p}, {@code r} or {@code w}), ARGV[6] the permits of {@code p}, or how long
	 * a refused {@code w} will wait (0 for not at all): it holds new readers back for
	 * that long, but never longer than its TTL, which each refused try starts anew.
	 * <p>
	 * A permit is refused while there are as many places as permits (remaining: the
	 * earliest expiry); a reader while a writer holds the key (the writer's expiry) or a
	 * writer waits (the longest); a writer while anyone holds it (the longest). A granted
	 * writer's wait ends. Permits never read the waits. On an empty key the place's
	 * expiry is the holders', and no mark can be left to keep alive.
	 */
	static final RedisScript<Long> ACQUIRE = RedisScript.of(PRELUDE + """
			local kind = ARGV[5]
			local count = redis.call('ZCARD', KEYS[1])
			local remaining = nil
			local function longest()
			  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
			  if last[2] then
			    return tonumber(last[2]) - now
			  end
			  return 0
			end
			if kind == 'p' then
			  if count >= tonumber(ARGV[6]) then
			    remaining = tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]) - now
			  end
			elseif kind == 'r' then
			  if count == 1 then
			    local only = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
			    if string.sub(only[1], 1, 1) == 'w' then
			      remaining = tonumber(only[2]) - now
			    end
			  end
			  if not remaining then
			    dropEndedWaits()
			    if redis.call('ZCARD', KEYS[2]) > 0 then
			      remaining = longest()
			    end
			  end
			else
			  dropEndedWaits()
			  if count > 0 then
			    remaining = longest()
			    local waits = math.min(tonumber(ARGV[6]), tonumber(ARGV[2]))
			    if waits > 0 then
			      redis.call('ZADD', KEYS[2], now + waits, ARGV[1])
			      redis.call('PEXPIREAT', KEYS[2], redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')[2])
			    end
			  else
			    redis.call('ZREM', KEYS[2], ARGV[1])
			  end
			end
			if remaining then
			  if ARGV[3] == '1' and count > 0 then
			    redis.call('SET', KEYS[4], '1')
			    settle()
			  end
			  return -remaining - 1
			end
			local expiry = now + tonumber(ARGV[2])
			redis.call('ZADD', KEYS[1], expiry, kind .. ARGV[1])
			if count == 0 then
			  redis.call('PEXPIREAT', KEYS[1], expiry)
			else
			  settle()
			end
			""" + RedisLockScripts.DRAW_AT.formatted("KEYS[3]", "ARGV[4]", "time") + """
			return fence
			""", Long.class);

	/**
	 * Gives up the place of the token ARGV[1], or else ends its wait as a writer;
	 * announces the release of the lock key ARGV[4] on the channel ARGV[2] (by
	 * {@code SPUBLISH} when ARGV[3] is {@code 1}, else {@code PUBLISH}) if the key is
	 * watched. Returns 1 when an unexpired place was given up, else 0. An unwatched key's
	 * holders keep their expiry: every script drops the places whose time is up before it
	 * reads them, and the set is gone when the last place's time is.
	 */
	static final RedisScript<Long> RELEASE = RedisScript.of(PRELUDE + """
			if redis.call('ZREM', KEYS[1], 'p' .. ARGV[1], 'r' .. ARGV[1], 'w' .. ARGV[1]) == 0 then
			  redis.call('ZREM', KEYS[2], ARGV[1])
			  return 0
			end
			if redis.call('EXISTS', KEYS[4]) == 1 then
			  settle()
			  if ARGV[3] == '1' then
			    redis.pcall('SPUBLISH', ARGV[2], ARGV[4])
			  else
			    redis.call('PUBLISH', ARGV[2], ARGV[4])
			  end
			end
			return 1
			""", Long.class);

	/**
	 * Resets the expiry of the token ARGV[1]'s unexpired place to ARGV[2] milliseconds
	 * from now. Returns 1 when extended, else 0.
	 */
	static final RedisScript<Long> EXTEND = RedisScript.of(PRELUDE + """
			for _, kind in ipairs({'p', 'r', 'w'}) do
			  if redis.call('ZSCORE', KEYS[1], kind .. ARGV[1]) then
			    redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), kind .. ARGV[1])
			    settle()
			    return 1
			  end
			end
			return 0
			""", Long.class);

	/**
	 * Returns the longest remaining time-to-live of the unexpired places in milliseconds,
	 * or 0 when there is none. Read from the places, not from the holders' expiry, which
	 * an unwatched release leaves as it was.
	 */
	static final RedisScript<Long> TIME_TO_EXPIRY = RedisScript.of("""
			local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
			if not last[2] then
			  return 0
			end
			local time = redis.call('TIME')
			local remaining = tonumber(last[2]) - (tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000))
			if remaining < 0 then
			  return 0
			end
			return remaining
			""", Long.class);

	private SharedLockScripts() {
	}

}
