package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ReactiveLockStore;
import dev.lockstarter.store.ReactiveResultStoringLockStore;
import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.ReleaseListeners;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * {@link dev.lockstarter.store.LockStore} on Redis, through Spring Data Redis.
 * <p>
 * A lock is a string key whose value is the owner token, with a millisecond expiry
 * ({@code PX}). Each operation is one Lua script, sent as {@code EVALSHA} (falling back
 * to {@code EVAL} once after a script cache flush), so each costs exactly one round trip:
 * <ul>
 * <li>acquire: {@code SET key token NX PX ttl}; when the key is taken, the same script
 * answers the holder's {@code PTTL}, and marks the holder's value as watched if a waiter
 * of this JVM listens for its release;</li>
 * <li>fencing token, on demand ({@link FencingOnDemandLockStore}): an owner-checked
 * script that draws it, only when the holder first reads it;</li>
 * <li>release: compare-and-delete, {@code DEL} only if the value is the caller's token,
 * then, only if a waiter watched the lock, {@code PUBLISH} of the key on the release
 * channel;</li>
 * <li>extend: compare-and-extend, {@code PEXPIRE} only if the value is the caller's
 * token; any number of locks in one script with {@link #extendAll}.</li>
 * <li>time to expiry: {@code PTTL} of the lock's key, read only, whoever holds it;</li>
 * <li>several keys ({@link MultiKeyLockStore}): when they share a hash slot, one script
 * checks that none is held, then sets them all with a fencing token each, so that no one
 * ever sees part of the set held; {@link #releaseAll} is one compare-and-delete script
 * per slot. Across the slots of a Redis Cluster, keys are taken one by one in order and
 * rolled back by token when one is held;</li>
 * <li>put result: {@code SET} of the lock's result key, with {@code PX ttl}, only if the
 * lock's value is the caller's token; {@link #getResult} is a plain {@code GET}.</li>
 * </ul>
 * Keys and tokens travel only as {@code KEYS} and {@code ARGV}, never inside script text.
 * <p>
 * <b>Key layout.</b> The part of a store key after the key prefix is a Redis Cluster hash
 * tag: the lock on {@code lock:UserService.register:alice} is the Redis key
 * <code>lock:{UserService.register:alice}</code>, and every other key of the lock (its
 * fencing counter <code>lock:{UserService.register:alice}:fence</code>, a stored result,
 * its sharded release channel) appends to that key, so a lock lives in one hash slot
 * whatever its value contains. A store key without the prefix is wrapped whole.
 * <p>
 * <b>Fencing tokens</b> are drawn when the holder first reads one
 * ({@link dev.lockstarter.core.Lease#fencingToken()}), by a script that checks that the
 * caller's token still holds the lock: a plain acquire and release runs no fencing
 * command and leaves nothing behind in Redis. They come from a counter next to the lock,
 * <code>lock:{...}:fence</code>, which the script increments and raises to the Redis
 * server's clock in microseconds if it is behind. The counter expires
 * {@value #FENCE_RETENTION_HOURS} hours after the key's last draw, so that keys used once
 * do not accumulate. Since a token is drawn only while its owner holds the lock, tokens
 * of one key strictly increase in the order in which owners held it, while its counter
 * lives, and after that as long as the server's clock has not moved back past the last
 * token drawn: a later token is at least the server's time. Reactive acquisitions
 * ({@link #tryAcquireReactive}), leases handed to clients outside the JVM
 * ({@link #tryAcquireFenced}) and acquisitions with replica acknowledgements draw the
 * token in the acquire script itself.
 * <p>
 * <b>Release notifications</b> are published on one channel (by default
 * {@code "lock:released"}), with the released key as message, and only for a lock that a
 * waiter watched: a waiter's attempt that finds the lock held appends {@value #WATCHED}
 * to the holder's value (keeping its expiry), and the release script publishes only when
 * it deletes such a value. Every owner check accepts the token with or without it. An
 * uncontended release therefore publishes nothing. One subscription connection, shared by
 * every waiter, dispatches them to the waiters of that key. It is opened after the first
 * wait, on a daemon thread of the store, and reopened there after a failure, with a
 * backoff of up to 2 seconds: a waiter never waits for it, and polls while it is not
 * open. {@link #getSubscriptionState()} tells where it stands. A lost notification only
 * delays a waiter until its next poll.
 * <p>
 * <b>Redis Cluster.</b> Every script touches the keys of one hash slot only, so each runs
 * on the node that owns the slot; {@link #extendAll} and {@link #releaseAll} send one
 * script per slot, and {@link #tryAcquireAll} takes keys of several slots one by one. On
 * a cluster reached through Lettuce, releases are announced with sharded pub/sub
 * ({@code SPUBLISH}, Redis 7) on the lock's own channel,
 * <code>lock:{...}:released</code>, which only the nodes of that slot's shard see; a
 * waiter subscribes ({@code SSUBSCRIBE}) to its lock's channel while it waits, over one
 * cluster pub/sub connection of the store. Elsewhere, and on a cluster of Redis 6, the
 * classic channel above is used (a cluster broadcasts it to every node), or no
 * notification arrives at all: waiters always poll as well.
 * <p>
 * <b>Reactive callers</b> ({@link ReactiveLockStore},
 * {@link ReactiveResultStoringLockStore}) send the same scripts and reads on the same
 * keys through Lettuce's asynchronous API, without blocking the subscriber's thread,
 * bounded by the same timeout, and get their answer on a parallel thread. A blocking and
 * a reactive caller of one key therefore exclude each other.
 * <p>
 * <b>Replica acknowledgements.</b> With {@link #setMinReplicaAcks(int)} above zero, an
 * acquisition is followed by {@code WAIT n timeout} on the same connection, a dedicated
 * one (from the pool when the connection factory pools connections), so that the wait
 * never holds up the shared connection. If fewer replicas acknowledge the write in time,
 * the lock is released by its token and the acquisition fails with a
 * {@link LockStoreException}. This narrows the window in which a failover loses a lock,
 * but does not close it: {@code WAIT} does not make a write durable, and a replica that
 * acknowledged it may still not be the one promoted. Not supported on Redis Cluster.
 * <p>
 * <b>Timeouts.</b> On a {@link LettuceConnectionFactory}, every operation waits for Redis
 * for at most the store's {@linkplain #setTimeout(Duration) timeout} (2 seconds by
 * default), whatever the factory's command timeout: the scripts are sent through
 * Lettuce's asynchronous API, and a command still unanswered at the timeout is cancelled
 * and the operation fails with a {@link LockStoreException}. That includes obtaining the
 * connection: the factory's shared connection is obtained once, on a daemon thread, and
 * then kept (Lettuce reconnects it by itself); a dedicated connection (replica
 * acknowledgements, or a factory that does not share its connection) is obtained on such
 * a thread too. With replica acknowledgements, an acquisition may take the timeout plus
 * the {@linkplain #setReplicaAckTimeout(Duration) replica acknowledgement timeout}. A
 * command that timed out may still run on Redis later, as with any client timeout: an
 * acquisition that fails this way is released by its token by the caller. With any other
 * connection factory (Jedis), operations run through a {@link RedisTemplate}, and the
 * factory's own timeouts (its socket timeout and pool wait) bound them instead.
 * <p>
 * Guarantees hold while Redis keeps its data: one primary, no failover that loses
 * acknowledged writes, and a {@code maxmemory-policy} of {@code noeviction}. Expiry is
 * decided by the Redis server's clock with millisecond precision.
 *
 * @since 0.1.0
 */
public class RedisLockStore implements ReleaseHandoffLockStore, ResultStoringLockStore, MultiKeyLockStore,
		FencingOnDemandLockStore, ReactiveResultStoringLockStore, DisposableBean {

	/** The default release channel. */
	public static final String DEFAULT_CHANNEL = "lock:released";

	/** The default key prefix, the part of a store key left outside its hash tag. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** The default timeout of an operation. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	/** The Lettuce type whose presence enables the Lettuce-specific commands. */
	static final String LETTUCE_TYPE_NAME = "io.lettuce.core.cluster.RedisClusterClient";

	private static final Log logger = LogFactory.getLog(RedisLockStore.class);

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent(LETTUCE_TYPE_NAME,
			RedisLockStore.class.getClassLoader());

	static final int FENCE_RETENTION_HOURS = 24;

	private static final String FENCE_RETENTION_MILLIS = Long
		.toString(Duration.ofHours(FENCE_RETENTION_HOURS).toMillis());

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
	 * Draws the next fencing token from the counter KEYS[2], raised to the Redis server's
	 * clock in microseconds if it is behind, and keeps the counter for the retention
	 * given as {@code %s}; leaves the token in {@code fence}.
	 */
	private static final String DRAW = """
			local fence = redis.call('INCR', KEYS[2])
			local now = redis.call('TIME')
			local floor = tonumber(now[1] .. string.format('%%06d', tonumber(now[2])))
			if fence < floor then
			  redis.call('SET', KEYS[2], floor)
			  fence = floor
			end
			redis.call('PEXPIRE', KEYS[2], %s)
			""";

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
			""" + DRAW.formatted("ARGV[4]") + """
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
			""" + DRAW.formatted("ARGV[2]") + """
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

	private final RedisConnectionFactory connectionFactory;

	private final StringRedisTemplate redis;

	private final RedisTemplate<String, byte[]> binary;

	private final @Nullable LettuceLockCommands lettuce;

	private final String channel;

	private final RedisKeys keys;

	private final ReleaseListeners listeners = new ReleaseListeners();

	/**
	 * Set once, without a lock: a reactive waiter reaches it on a thread that must not
	 * block, even for a moment.
	 */
	private final AtomicReference<@Nullable ChannelReleaseSubscriber> channelSubscriber = new AtomicReference<>();

	private volatile boolean destroyed;

	/** Set once, without a lock, as {@link #channelSubscriber}. */
	private final AtomicReference<@Nullable Topology> topology = new AtomicReference<>();

	private volatile Duration timeout = DEFAULT_TIMEOUT;

	private int minReplicaAcks;

	private Duration replicaAckTimeout = Duration.ofSeconds(1);

	/**
	 * Create a store on the given connection factory, for keys with the
	 * {@link #DEFAULT_KEY_PREFIX}, announcing releases on {@link #DEFAULT_CHANNEL}.
	 * @param connectionFactory the Redis connection factory
	 */
	public RedisLockStore(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, DEFAULT_KEY_PREFIX, DEFAULT_CHANNEL);
	}

	/**
	 * Create a store on the given connection factory, for keys with the
	 * {@link #DEFAULT_KEY_PREFIX}.
	 * @param connectionFactory the Redis connection factory
	 * @param channel the channel on which releases are announced
	 */
	public RedisLockStore(RedisConnectionFactory connectionFactory, String channel) {
		this(connectionFactory, DEFAULT_KEY_PREFIX, channel);
	}

	/**
	 * Create a store on the given connection factory.
	 * @param connectionFactory the Redis connection factory
	 * @param keyPrefix the prefix of the store keys (as given to {@code LockTemplate}),
	 * left outside the hash tag of each key; may be empty, must not contain {@code '{'}
	 * or {@code '}'}
	 * @param channel the channel on which releases are announced, when not by sharded
	 * pub/sub
	 * @since 0.1.0
	 */
	public RedisLockStore(RedisConnectionFactory connectionFactory, String keyPrefix, String channel) {
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		Assert.notNull(keyPrefix, "'keyPrefix' must not be null");
		Assert.hasText(channel, "'channel' must not be empty");
		this.connectionFactory = connectionFactory;
		this.redis = new StringRedisTemplate(connectionFactory);
		this.binary = binaryTemplate(connectionFactory);
		this.lettuce = isLettuce(connectionFactory)
				? new LettuceLockCommands((LettuceConnectionFactory) connectionFactory) : null;
		this.keys = new RedisKeys(keyPrefix);
		this.channel = channel;
		if (this.lettuce != null) {
			LettuceLockCommands.prepare(ACQUIRE, ACQUIRE_FENCED, FENCE, RELEASE, EXTEND, PUT_RESULT, ACQUIRE_READING,
					RELEASE_KEEPING);
		}
	}

	private static boolean isLettuce(RedisConnectionFactory connectionFactory) {
		return LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory;
	}

	/**
	 * Set the longest time an operation waits for Redis before it fails with a
	 * {@link LockStoreException}; 2 seconds by default. Applies on a
	 * {@link LettuceConnectionFactory}, whatever its command timeout; with another
	 * connection factory, that factory's own timeouts apply.
	 * @param timeout the timeout, positive
	 * @since 0.1.0
	 */
	public void setTimeout(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isNegative() && !timeout.isZero(), "'timeout' must be positive");
		this.timeout = timeout;
	}

	/**
	 * Return the longest time an operation waits for Redis.
	 * @return the timeout
	 * @since 0.1.0
	 */
	public Duration getTimeout() {
		return this.timeout;
	}

	/**
	 * Set the longest time a calling thread spins for Redis's answer before it parks; 100
	 * microseconds by default, zero to park at once. A caller spins only while it is the
	 * only one of the process waiting for Redis, and only while answers keep coming
	 * within this time; a parked thread's wake-up can take longer than a loopback round
	 * trip. Applies on a {@link LettuceConnectionFactory}, to blocking calls only.
	 * @param replySpin the spin time, zero or more
	 * @since 0.1.0
	 */
	public void setReplySpin(Duration replySpin) {
		Assert.notNull(replySpin, "'replySpin' must not be null");
		Assert.isTrue(!replySpin.isNegative(), "'replySpin' must not be negative");
		if (this.lettuce != null) {
			this.lettuce.setReplySpin(replySpin);
		}
	}

	/**
	 * Return the longest time a calling thread spins for Redis's answer: zero without
	 * Lettuce, or on a single processor.
	 * @return the spin time
	 * @since 0.1.0
	 */
	public Duration getReplySpin() {
		LettuceLockCommands lettuce = this.lettuce;
		return (lettuce != null) ? lettuce.getReplySpin() : Duration.ZERO;
	}

	/**
	 * Set the number of replicas that must acknowledge an acquisition ({@code WAIT})
	 * before it counts as acquired; 0 (the default) does not wait. Not supported on Redis
	 * Cluster.
	 * @param minReplicaAcks the number of replicas, 0 or more
	 */
	public void setMinReplicaAcks(int minReplicaAcks) {
		Assert.isTrue(minReplicaAcks >= 0, "'minReplicaAcks' must not be negative");
		this.minReplicaAcks = minReplicaAcks;
	}

	/**
	 * Set the longest time an acquisition waits for the replica acknowledgements of
	 * {@link #setMinReplicaAcks(int)}; 1 second by default. An acquisition that waits for
	 * them may take up to this time on top of the {@linkplain #setTimeout(Duration)
	 * timeout}.
	 * @param replicaAckTimeout the timeout, positive
	 */
	public void setReplicaAckTimeout(Duration replicaAckTimeout) {
		Assert.notNull(replicaAckTimeout, "'replicaAckTimeout' must not be null");
		Assert.isTrue(!replicaAckTimeout.isNegative() && !replicaAckTimeout.isZero(),
				"'replicaAckTimeout' must be positive");
		this.replicaAckTimeout = replicaAckTimeout;
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		if (this.minReplicaAcks > 0) {
			return tryAcquireAcknowledged(key, token, ttl);
		}
		String lockKey = this.keys.lockKey(key);
		String watch = watch(lockKey);
		LettuceLockCommands lettuce = this.lettuce;
		if (lettuce != null && watch.equals("0")) {
			// A plain SET NX PX, the cheapest command that takes the lock; only a lock
			// found held runs the script, which says for how long (and takes the lock if
			// it was released in between)
			byte[] keyBytes = lockKey.getBytes(StandardCharsets.UTF_8);
			byte[] tokenBytes = token.getBytes(StandardCharsets.UTF_8);
			long started = System.nanoTime();
			long deadline = started + this.timeout.toNanos();
			Boolean set = lettuce("acquire", key, started, deadline,
					() -> lettuce.setIfAbsent(keyBytes, tokenBytes, ttl.toMillis(), deadline));
			if (Boolean.TRUE.equals(set)) {
				return AcquireReply.acquired();
			}
		}
		return acquireResult(run("acquire", key, ACQUIRE, new String[] { lockKey }, token, millis(ttl), watch));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The acquisition and the draw of the fencing token in one script, one round trip.
	 * With {@linkplain #setMinReplicaAcks(int) replica acknowledgements} every
	 * acquisition draws its token this way.
	 */
	@Override
	public AcquireReply tryAcquireFenced(String key, String token, Duration ttl) {
		if (this.minReplicaAcks > 0) {
			return tryAcquireAcknowledged(key, token, ttl);
		}
		String lockKey = this.keys.lockKey(key);
		return acquireResult(
				run("acquire", key, ACQUIRE_FENCED, new String[] { lockKey, this.keys.related(key, "fence") }, token,
						millis(ttl), watch(lockKey), FENCE_RETENTION_MILLIS));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One owner-checked script: it increments the key's fencing counter,
	 * <code>lock:{...}:fence</code>, raises it to the Redis server's clock in
	 * microseconds if it is behind, and keeps it for {@value #FENCE_RETENTION_HOURS}
	 * hours.
	 */
	@Override
	public long fencingToken(String key, String token) {
		Long answer = run("draw the fencing token of", key, FENCE,
				new String[] { this.keys.lockKey(key), this.keys.related(key, "fence") }, token,
				FENCE_RETENTION_MILLIS);
		return (answer != null && answer > 0) ? answer : AcquireReply.NO_FENCING_TOKEN;
	}

	@Override
	public boolean release(String key, String token) {
		Long answer = run("release", key, RELEASE, new String[] { this.keys.lockKey(key) }, token,
				releaseChannel("release", key), shardedFlag("release", key));
		return answer != null && answer == 1L;
	}

	/** {@code "1"} when a waiter of this JVM listens for the release of the lock key. */
	private String watch(String lockKey) {
		return this.listeners.isWatched(lockKey) ? "1" : "0";
	}

	private String releaseChannel(String operation, String key) {
		return (topology(operation, key).sharded() != null) ? this.keys.related(key, "released") : this.channel;
	}

	private String shardedFlag(String operation, String key) {
		return (topology(operation, key).sharded() != null) ? "1" : "0";
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		Long answer = run("extend", key, EXTEND, new String[] { this.keys.lockKey(key) }, token, millis(ttl));
		return answer != null && answer == 1L;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One script that reads the {@code PTTL} of the lock's key, changing nothing; a key
	 * that does not exist (free, released or expired) answers {@link Duration#ZERO}. As
	 * every operation, it waits for Redis for at most the
	 * {@linkplain #setTimeout(Duration) timeout} on a {@link LettuceConnectionFactory},
	 * and for the factory's own timeouts otherwise.
	 */
	@Override
	public Duration timeToExpiry(String key) {
		Long answer = run("read the time to expiry of", key, TIME_TO_EXPIRY, new String[] { this.keys.lockKey(key) });
		return (answer != null && answer > 0) ? Duration.ofMillis(answer) : Duration.ZERO;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The same script on the same keys as {@link #tryAcquireFenced}, so that a reactive
	 * lease reads its fencing token without a store call, sent through Lettuce's
	 * asynchronous API on the factory's shared connection, bounded by the
	 * {@linkplain #setTimeout(Duration) timeout} (the command is cancelled when it
	 * passes). The answer is signalled on a {@link Schedulers#parallel() parallel}
	 * thread, never on Lettuce's I/O thread. With replica acknowledgements, or on a
	 * factory other than a {@link LettuceConnectionFactory} sharing its connection, the
	 * blocking operation runs on {@link Schedulers#boundedElastic()}.
	 */
	@Override
	public Mono<AcquireReply> tryAcquireReactive(String key, String token, Duration ttl) {
		if (this.minReplicaAcks > 0) {
			return blocking(() -> tryAcquireFenced(key, token, ttl));
		}
		String lockKey = this.keys.lockKey(key);
		Mono<Long> answer = runReactive("acquire", key, ACQUIRE_FENCED,
				List.of(lockKey, this.keys.related(key, "fence")), token, millis(ttl), watch(lockKey),
				FENCE_RETENTION_MILLIS);
		return (answer != null)
				? answer.map(RedisLockStore::acquireResult).switchIfEmpty(Mono.fromSupplier(() -> acquireResult(null)))
				: blocking(() -> tryAcquireFenced(key, token, ttl));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The script of {@link #tryAcquire} for a waiter (a lock found held again is marked
	 * watched), sent through Lettuce's asynchronous API by the thread that read the
	 * announcement: on the subscribed connection itself when Redis lets it run commands
	 * (RESP3, on a primary), so that no other thread is woken to send it, else on the
	 * factory's shared connection; bounded by the {@linkplain #setTimeout(Duration)
	 * timeout}, after which the command is cancelled. The future completes on Lettuce's
	 * I/O thread (or its timer's). Empty, so that the waiter tries itself, with replica
	 * acknowledgements, on a factory other than a {@link LettuceConnectionFactory}
	 * sharing its connection, and while no connection is open.
	 */
	@Override
	public Optional<CompletableFuture<AcquireReply>> tryAcquireOnRelease(String key, String token, Duration ttl) {
		LettuceLockCommands lettuce = this.lettuce;
		if (lettuce == null || this.minReplicaAcks > 0) {
			return Optional.empty();
		}
		Duration timeout = this.timeout;
		CompletableFuture<Long> reply = lettuce.evalAnswering(this.channelSubscriber.get(), ACQUIRE,
				new byte[][] { bytes(this.keys.lockKey(key)) },
				new byte[][] { bytes(token), bytes(millis(ttl)), bytes("1") }, timeout);
		if (reply == null) {
			return Optional.empty();
		}
		return Optional.of(reply.handle((answer, ex) -> {
			if (ex != null) {
				throw failure("acquire", key, timeout, ex);
			}
			return acquireResult(answer);
		}));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The same compare-and-delete script as {@link #release}, announcing the release on
	 * the same channel; sent and bounded as {@link #tryAcquireReactive}.
	 */
	@Override
	public Mono<Boolean> releaseReactive(String key, String token) {
		return Mono.defer(() -> {
			Mono<Long> answer = runReactive("release", key, RELEASE, List.of(this.keys.lockKey(key)), token,
					releaseChannel("release", key), shardedFlag("release", key));
			return (answer != null) ? answer.map((value) -> value == 1L).defaultIfEmpty(false)
					: blocking(() -> release(key, token));
		});
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The same compare-and-extend script as {@link #extend}; sent and bounded as
	 * {@link #tryAcquireReactive}.
	 */
	@Override
	public Mono<Boolean> extendReactive(String key, String token, Duration ttl) {
		Mono<Long> answer = runReactive("extend", key, EXTEND, List.of(this.keys.lockKey(key)), token, millis(ttl));
		return (answer != null) ? answer.map((value) -> value == 1L).defaultIfEmpty(false)
				: blocking(() -> extend(key, token, ttl));
	}

	@Override
	public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
		Assert.isTrue(keys.size() == tokens.size(), "'keys' and 'tokens' must have the same size");
		boolean[] extended = new boolean[keys.size()];
		if (keys.isEmpty()) {
			return extended;
		}
		List<List<Integer>> groups = slotGroups("extend", keys);
		List<List<String>> groupKeys = new ArrayList<>(groups.size());
		List<List<String>> groupArgs = new ArrayList<>(groups.size());
		for (List<Integer> indexes : groups) {
			List<String> redisKeys = new ArrayList<>(indexes.size());
			List<String> args = new ArrayList<>(indexes.size() + 1);
			args.add(millis(ttl));
			for (int index : indexes) {
				redisKeys.add(this.keys.lockKey(keys.get(index)));
				args.add(tokens.get(index));
			}
			groupKeys.add(redisKeys);
			groupArgs.add(args);
		}
		@SuppressWarnings("rawtypes")
		List<@Nullable List> answers = call("extend " + keys.size() + " locks, among them", keys.get(0),
				(lettuce, deadline) -> lettuce.evalEach(EXTEND_ALL, bytes(groupKeys), bytes(groupArgs), deadline),
				() -> {
					List<@Nullable List> replies = new ArrayList<>(groups.size());
					for (int i = 0; i < groups.size(); i++) {
						replies.add(this.redis.execute(EXTEND_ALL, groupKeys.get(i), groupArgs.get(i).toArray()));
					}
					return replies;
				});
		for (int group = 0; answers != null && group < groups.size() && group < answers.size(); group++) {
			List<Integer> indexes = groups.get(group);
			List<?> answer = answers.get(group);
			for (int i = 0; i < indexes.size() && answer != null && i < answer.size(); i++) {
				extended[indexes.get(i)] = Long.valueOf(1L).equals(answer.get(i));
			}
		}
		return extended;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * When every key is in one hash slot, which is always so on one server or through
	 * Sentinel, one script checks that no key is held and then takes them all, with a
	 * fencing token each: atomic, one round trip. On Redis Cluster, keys in several slots
	 * cannot be touched by one script: they are acquired one by one in the given order
	 * (one round trip each), and when one is held, those taken are released by the token
	 * in one round trip per slot before the conflict is returned; if that release fails,
	 * a {@link LockStoreException} is thrown so that the caller cleans up by token. With
	 * {@linkplain #setMinReplicaAcks(int) replica acknowledgements}, keys are also taken
	 * one by one, each acknowledged.
	 */
	@Override
	public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		if (this.minReplicaAcks > 0 || slotGroups("acquire", keys).size() > 1) {
			return tryAcquireInOrder(keys, token, ttl);
		}
		int n = keys.size();
		List<String> redisKeys = new ArrayList<>(n);
		boolean watched = false;
		for (String key : keys) {
			String lockKey = this.keys.lockKey(key);
			redisKeys.add(lockKey);
			watched |= this.listeners.isWatched(lockKey);
		}
		byte[][] keyBytes = bytes(redisKeys);
		String[] args = { token, millis(ttl), watched ? "1" : "0" };
		byte[][] argBytes = bytes(List.of(args));
		@SuppressWarnings("rawtypes")
		List answer = call("acquire " + n + " locks, among them", keys.get(0),
				(lettuce, deadline) -> lettuce.eval(ACQUIRE_ALL, keyBytes, argBytes, deadline),
				() -> this.redis.execute(ACQUIRE_ALL, redisKeys, (Object[]) args));
		if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long first)) {
			throw new LockStoreException(keys.get(0),
					"Redis lock store got no answer to acquire " + n + " locks, among them '" + keys.get(0) + "'",
					new IllegalStateException("Reply: " + answer));
		}
		if (first > 0) {
			long remaining = (answer.size() > 1 && answer.get(1) instanceof Long ttlMillis) ? ttlMillis : 0;
			return MultiKeyAcquireReply.held((int) (first - 1), Duration.ofMillis(remaining));
		}
		// Fencing tokens are drawn on demand, key by key
		return MultiKeyAcquireReply.acquired(new long[n]);
	}

	private MultiKeyAcquireReply tryAcquireInOrder(List<String> keys, String token, Duration ttl) {
		long[] fencingTokens = new long[keys.size()];
		for (int i = 0; i < keys.size(); i++) {
			AcquireReply result = tryAcquire(keys.get(i), token, ttl);
			if (!result.isAcquired()) {
				if (i > 0) {
					try {
						releaseAll(keys.subList(0, i), token);
					}
					catch (LockStoreException ex) {
						throw new LockStoreException(
								keys.get(0), "Redis lock store found lock '" + keys.get(i)
										+ "' held and could not release the " + i + " lock(s) it had taken before it",
								ex);
					}
				}
				return MultiKeyAcquireReply.held(i, result.holderRemainingTtl());
			}
			fencingTokens[i] = result.fencingToken();
		}
		return MultiKeyAcquireReply.acquired(fencingTokens);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One script per hash slot, all sent at once: one round trip. Each deleted lock is
	 * announced as {@link #release} announces it.
	 */
	@Override
	public boolean[] releaseAll(List<String> keys, String token) {
		boolean[] released = new boolean[keys.size()];
		if (keys.isEmpty()) {
			return released;
		}
		boolean sharded = topology("release", keys.get(0)).sharded() != null;
		List<List<Integer>> groups = slotGroups("release", keys);
		List<List<String>> groupKeys = new ArrayList<>(groups.size());
		List<List<String>> groupArgs = new ArrayList<>(groups.size());
		for (List<Integer> indexes : groups) {
			List<String> redisKeys = new ArrayList<>(indexes.size());
			List<String> args = new ArrayList<>(indexes.size() + 2);
			args.add(token);
			args.add(sharded ? "1" : "0");
			for (int index : indexes) {
				redisKeys.add(this.keys.lockKey(keys.get(index)));
				args.add(sharded ? this.keys.related(keys.get(index), "released") : this.channel);
			}
			groupKeys.add(redisKeys);
			groupArgs.add(args);
		}
		@SuppressWarnings("rawtypes")
		List<@Nullable List> answers = call("release " + keys.size() + " locks, among them", keys.get(0),
				(lettuce, deadline) -> lettuce.evalEach(RELEASE_ALL, bytes(groupKeys), bytes(groupArgs), deadline),
				() -> {
					List<@Nullable List> replies = new ArrayList<>(groups.size());
					for (int i = 0; i < groups.size(); i++) {
						replies.add(this.redis.execute(RELEASE_ALL, groupKeys.get(i), groupArgs.get(i).toArray()));
					}
					return replies;
				});
		for (int group = 0; answers != null && group < groups.size() && group < answers.size(); group++) {
			List<Integer> indexes = groups.get(group);
			List<?> answer = answers.get(group);
			for (int i = 0; i < indexes.size() && answer != null && i < answer.size(); i++) {
				released[indexes.get(i)] = Long.valueOf(1L).equals(answer.get(i));
			}
		}
		return released;
	}

	/**
	 * Group the indexes of keys by the hash slot of their lock: one group on a server
	 * that is not a cluster, whose scripts may touch any key.
	 */
	private List<List<Integer>> slotGroups(String operation, List<String> keys) {
		if (!topology(operation, keys.get(0)).cluster()) {
			return List.of(allIndexes(keys.size()));
		}
		// A cluster script may only touch keys of one slot
		Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
		for (int i = 0; i < keys.size(); i++) {
			int slot = ClusterSlotHashUtil.calculateSlot(this.keys.lockKey(keys.get(i)));
			bySlot.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(i);
		}
		return new ArrayList<>(bySlot.values());
	}

	private static List<Integer> allIndexes(int size) {
		List<Integer> indexes = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			indexes.add(i);
		}
		return indexes;
	}

	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		byte[][] redisKeys = { bytes(this.keys.lockKey(key)), bytes(this.keys.related(key, "result")) };
		byte[][] args = { bytes(token), result, bytes(millis(ttl)) };
		Long answer = call("store the result of", key,
				(lettuce, deadline) -> lettuce.eval(PUT_RESULT, redisKeys, args, deadline),
				() -> this.binary.execute(PUT_RESULT, List.of(this.keys.lockKey(key), this.keys.related(key, "result")),
						args[0], args[1], args[2]));
		return answer != null && answer == 1L;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One script through Lettuce ({@code GET} of the result, then the acquisition as
	 * {@link #tryAcquire} makes it when the lock is held); two calls otherwise, and with
	 * {@linkplain #setMinReplicaAcks(int) replica acknowledgements}.
	 */
	@Override
	public AcquireReplyWithResult tryAcquireReadingResult(String key, String token, Duration ttl) {
		LettuceLockCommands lettuce = this.lettuce;
		if (lettuce == null || this.minReplicaAcks > 0) {
			byte[] kept = getResult(key);
			return new AcquireReplyWithResult(tryAcquire(key, token, ttl), kept);
		}
		String lockKey = this.keys.lockKey(key);
		byte[][] redisKeys = { bytes(lockKey), bytes(this.keys.related(key, "result")) };
		byte[][] args = { bytes(token), bytes(millis(ttl)), bytes(watch(lockKey)) };
		long started = System.nanoTime();
		long deadline = started + this.timeout.toNanos();
		@SuppressWarnings("rawtypes")
		List answer = lettuce("acquire", key, started, deadline,
				() -> lettuce.eval(ACQUIRE_READING, redisKeys, args, deadline));
		if (answer == null || answer.isEmpty() || !(answer.get(0) instanceof Long acquisition)) {
			throw new LockStoreException(key, "Redis lock store got no answer to acquire lock '" + key + "'",
					new IllegalStateException("Reply: " + answer));
		}
		byte[] kept = (answer.size() > 1 && answer.get(1) instanceof byte[] bytes) ? bytes : null;
		return new AcquireReplyWithResult(acquireResult(acquisition), kept);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * One script through Lettuce: the owner check, the result's {@code SET}, the
	 * {@code DEL} and, for a watched lock, the announcement; two calls otherwise.
	 */
	@Override
	public boolean releaseKeepingResult(String key, String token, byte[] result, Duration ttl) {
		LettuceLockCommands lettuce = this.lettuce;
		if (lettuce == null) {
			boolean kept = putResult(key, token, result, ttl);
			return release(key, token) && kept;
		}
		byte[][] redisKeys = { bytes(this.keys.lockKey(key)), bytes(this.keys.related(key, "result")) };
		byte[][] args = { bytes(token), bytes(releaseChannel("release", key)), bytes(shardedFlag("release", key)),
				result, bytes(millis(ttl)) };
		long started = System.nanoTime();
		long deadline = started + this.timeout.toNanos();
		Long answer = lettuce("release", key, started, deadline,
				() -> lettuce.eval(RELEASE_KEEPING, redisKeys, args, deadline));
		return answer != null && answer == 1L;
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		String resultKey = this.keys.related(key, "result");
		return call("read the result of", key, (lettuce, deadline) -> lettuce.get(bytes(resultKey), deadline),
				() -> this.binary.opsForValue().get(resultKey));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The same script on the same keys as {@link #putResult}; sent and bounded as
	 * {@link #tryAcquireReactive}.
	 */
	@Override
	public Mono<Boolean> putResultReactive(String key, String token, byte[] result, Duration ttl) {
		LettuceLockCommands lettuce = this.lettuce;
		byte[][] redisKeys = { bytes(this.keys.lockKey(key)), bytes(this.keys.related(key, "result")) };
		byte[][] args = { bytes(token), result, bytes(millis(ttl)) };
		Mono<Long> answer = (lettuce != null) ? lettuce.evalReactive(PUT_RESULT, redisKeys, args) : null;
		return (answer != null)
				? bounded("store the result of", key, answer).map((value) -> value == 1L).defaultIfEmpty(false)
				: blocking(() -> putResult(key, token, result, ttl));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A plain {@code GET}, as {@link #getResult}; sent and bounded as
	 * {@link #tryAcquireReactive}.
	 */
	@Override
	public Mono<byte[]> getResultReactive(String key) {
		LettuceLockCommands lettuce = this.lettuce;
		Mono<byte[]> answer = (lettuce != null) ? lettuce.getReactive(bytes(this.keys.related(key, "result"))) : null;
		return (answer != null) ? bounded("read the result of", key, answer) : blocking(() -> getResult(key));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Registers the listener and returns at once: the subscription to release
	 * notifications is opened in the background on the first call, and until it is open
	 * the listener is simply not called (waiters poll).
	 */
	@Override
	public Subscription subscribe(String key, Runnable listener) {
		Subscription subscription = this.listeners.add(this.keys.lockKey(key), listener);
		Topology topology;
		try {
			topology = topology("subscribe to", key);
		}
		catch (LockStoreException ex) {
			// Without a topology (a factory other than Lettuce's that cannot connect),
			// waiters poll; the next wait tries again.
			return subscription;
		}
		ShardedReleaseSubscriber sharded = topology.sharded();
		if (sharded != null) {
			String channel = this.keys.related(key, "released");
			sharded.subscribe(channel);
			AtomicBoolean closed = new AtomicBoolean();
			return () -> {
				if (closed.compareAndSet(false, true)) {
					subscription.close();
					sharded.unsubscribe(channel);
				}
			};
		}
		ChannelReleaseSubscriber subscriber = channelSubscriber();
		if (subscriber != null) {
			subscriber.start();
		}
		return subscription;
	}

	/**
	 * Return the state of the subscription to release notifications, for a health
	 * indicator: {@link SubscriptionState#IDLE} until a waiter first needs it.
	 * @return the state
	 * @since 0.1.0
	 */
	public SubscriptionState getSubscriptionState() {
		Topology known = this.topology.get();
		ReleaseSubscriber subscriber = (known != null && known.sharded() != null) ? known.sharded()
				: this.channelSubscriber.get();
		return (subscriber != null) ? subscriber.state() : SubscriptionState.IDLE;
	}

	/**
	 * Return the channel on which releases are announced, except on a Redis Cluster
	 * reached through Lettuce, where each lock has its own sharded channel.
	 * @return the channel
	 */
	public String getChannel() {
		return this.channel;
	}

	/**
	 * Stop the background work of the store: the subscription to release notifications
	 * and its retries, and the threads that obtain connections. The connection factory is
	 * left alone.
	 */
	@Override
	public void destroy() {
		this.destroyed = true;
		// A subscriber created meanwhile is closed by its creator, which sees the flag
		ChannelReleaseSubscriber subscriber = this.channelSubscriber.get();
		if (subscriber != null) {
			subscriber.close();
		}
		Topology known = this.topology.get();
		if (known != null && known.sharded() != null) {
			known.sharded().close();
		}
		if (this.lettuce != null) {
			this.lettuce.destroy();
		}
	}

	private @Nullable ChannelReleaseSubscriber channelSubscriber() {
		ChannelReleaseSubscriber subscriber = this.channelSubscriber.get();
		if (subscriber != null || this.destroyed) {
			return subscriber;
		}
		// Creating one does nothing until it is started, so a candidate that loses the
		// race is dropped
		ChannelReleaseSubscriber candidate = new ChannelReleaseSubscriber(this.connectionFactory, this.channel,
				this.listeners::released);
		if (!this.channelSubscriber.compareAndSet(null, candidate)) {
			return this.channelSubscriber.get();
		}
		if (this.destroyed) {
			candidate.close();
		}
		return candidate;
	}

	private AcquireReply tryAcquireAcknowledged(String key, String token, Duration ttl) {
		if (topology("acquire", key).cluster()) {
			throw new LockStoreException(key,
					"Redis lock store cannot wait for replica acknowledgements "
							+ "(min-replica-acks) on Redis Cluster; set lock.redis.min-replica-acks to 0",
					new IllegalStateException("WAIT on Redis Cluster"));
		}
		String lockKey = this.keys.lockKey(key);
		byte[][] redisKeys = { bytes(lockKey), bytes(this.keys.related(key, "fence")) };
		byte[][] args = { bytes(token), bytes(millis(ttl)), bytes(watch(lockKey)), bytes(FENCE_RETENTION_MILLIS) };
		Exception[] waitFailure = new Exception[1];
		long[] replies;
		LettuceLockCommands lettuce = this.lettuce;
		if (lettuce != null) {
			long started = System.nanoTime();
			// WAIT may take the replica acknowledgement timeout on top of the timeout
			long deadline = started + this.timeout.toNanos() + this.replicaAckTimeout.toNanos();
			replies = lettuce("acquire", key, started, deadline, () -> lettuce.evalThenWait(ACQUIRE_FENCED, redisKeys,
					args, this.minReplicaAcks, this.replicaAckTimeout.toMillis(), deadline, waitFailure));
		}
		else {
			replies = template("acquire", key, () -> this.redis.execute(
					(RedisCallback<long[]>) (connection) -> acquireThenWait(connection, redisKeys, args, waitFailure),
					true));
		}
		AcquireReply result = acquireResult((replies != null) ? replies[0] : null);
		long acks = (replies != null) ? replies[1] : -1L;
		if (result.isAcquired() && acks < this.minReplicaAcks) {
			// Acquired but not acknowledged: not counted as acquired, so it must not
			// stay behind.
			String released = releaseQuietly(key, token) ? "the lock was released"
					: "releasing it failed too, so it expires with its time-to-live";
			if (waitFailure[0] != null) {
				throw new LockStoreException(key, "Redis lock store acquired lock '" + key
						+ "' but could not wait for its replica acknowledgements (lock.redis.min-replica-acks); "
						+ released, waitFailure[0]);
			}
			throw new LockStoreException(key,
					"Redis lock store acquired lock '" + key + "' but only " + Math.max(acks, 0) + " of the "
							+ this.minReplicaAcks + " replicas required (lock.redis.min-replica-acks) acknowledged it "
							+ "within " + this.replicaAckTimeout.toMillis() + " ms; " + released,
					new IllegalStateException("WAIT " + this.minReplicaAcks + " " + this.replicaAckTimeout.toMillis()
							+ " answered " + acks));
		}
		return result;
	}

	/**
	 * The acquisition with replica acknowledgements through a {@link RedisTemplate}: a
	 * pipeline runs on a dedicated connection, so WAIT never blocks the shared one.
	 */
	private long[] acquireThenWait(org.springframework.data.redis.connection.RedisConnection connection,
			byte[][] redisKeys, byte[][] args, Exception[] waitFailure) {
		connection.openPipeline();
		byte[][] keysAndArgs = concat(redisKeys, args);
		connection.scriptingCommands()
			.eval(bytes(ACQUIRE_FENCED.getScriptAsString()), ReturnType.INTEGER, redisKeys.length, keysAndArgs);
		Long acquired = (Long) connection.closePipeline().get(0);
		if (acquired == null || acquired <= 0) {
			return new long[] { (acquired != null) ? acquired : -1L, 0 };
		}
		try {
			connection.openPipeline();
			connection.execute("WAIT", bytes(Integer.toString(this.minReplicaAcks)),
					bytes(Long.toString(this.replicaAckTimeout.toMillis())));
			Object waited = connection.closePipeline().get(0);
			return new long[] { acquired, (waited instanceof Number number) ? number.longValue() : -1L };
		}
		catch (RuntimeException ex) {
			waitFailure[0] = ex;
			return new long[] { acquired, -1L };
		}
	}

	private boolean releaseQuietly(String key, String token) {
		try {
			release(key, token);
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private static AcquireReply acquireResult(@Nullable Long answer) {
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
	 * What the store knows of its connection factory: asks Redis only for a factory other
	 * than Lettuce's, which tells without a connection, and holds no lock meanwhile.
	 */
	private Topology topology(String operation, String key) {
		Topology known = this.topology.get();
		if (known == null) {
			known = detectTopology(operation, key);
			if (!this.topology.compareAndSet(null, known)) {
				known = this.topology.get();
			}
		}
		return known;
	}

	private Topology detectTopology(String operation, String key) {
		if (this.lettuce != null) {
			ShardedReleaseSubscriber sharded = ShardedReleaseSubscriber.of(this.connectionFactory,
					this.listeners::released);
			return new Topology(((LettuceConnectionFactory) this.connectionFactory).isClusterAware(), sharded);
		}
		Boolean cluster = template(operation, key, () -> this.redis
			.execute((RedisCallback<Boolean>) (connection) -> connection instanceof RedisClusterConnection, true));
		return new Topology(Boolean.TRUE.equals(cluster), null);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static byte[][] bytes(List<String> values) {
		byte[][] bytes = new byte[values.size()][];
		for (int i = 0; i < bytes.length; i++) {
			bytes[i] = bytes(values.get(i));
		}
		return bytes;
	}

	private static byte[][] bytes(String[] values) {
		byte[][] bytes = new byte[values.length][];
		for (int i = 0; i < bytes.length; i++) {
			bytes[i] = bytes(values[i]);
		}
		return bytes;
	}

	private static List<byte[][]> bytes(Collection<List<String>> groups) {
		return groups.stream().map(RedisLockStore::bytes).toList();
	}

	private static byte[][] concat(byte[][] keys, byte[][] args) {
		byte[][] all = new byte[keys.length + args.length][];
		System.arraycopy(keys, 0, all, 0, keys.length);
		System.arraycopy(args, 0, all, keys.length, args.length);
		return all;
	}

	private @Nullable Long run(String operation, String key, RedisScript<Long> script, String[] keys, String... args) {
		LettuceLockCommands lettuce = this.lettuce;
		if (lettuce == null) {
			return template(operation, key, () -> this.redis.execute(script, List.of(keys), (Object[]) args));
		}
		byte[][] redisKeys = bytes(keys);
		byte[][] redisArgs = bytes(args);
		long started = System.nanoTime();
		long deadline = started + this.timeout.toNanos();
		return lettuce(operation, key, started, deadline, () -> lettuce.eval(script, redisKeys, redisArgs, deadline));
	}

	/**
	 * Run a script through Lettuce without blocking, within the timeout; {@code null}
	 * when the store has no shared Lettuce connection to do so.
	 */
	private @Nullable Mono<Long> runReactive(String operation, String key, RedisScript<Long> script, List<String> keys,
			String... args) {
		LettuceLockCommands lettuce = this.lettuce;
		if (lettuce == null) {
			return null;
		}
		Mono<Long> reply = lettuce.evalReactive(script, bytes(keys), bytes(List.of(args)));
		return (reply != null) ? bounded(operation, key, reply) : null;
	}

	/**
	 * Bound a reply sent through Lettuce by the timeout, signal it off Lettuce's I/O
	 * thread, and turn its failures into {@link LockStoreException}s.
	 */
	private <T> Mono<T> bounded(String operation, String key, Mono<T> reply) {
		Duration timeout = this.timeout;
		// Replies arrive on a Lettuce I/O thread: what follows (the guarded work) runs
		// on a parallel thread instead, so it can never hold up the replies of other
		// commands, nor wait on that thread for a reply only that thread can read
		return reply.timeout(timeout)
			.publishOn(Schedulers.parallel())
			.onErrorMap((ex) -> !(ex instanceof LockStoreException), (ex) -> failure(operation, key, timeout, ex));
	}

	/**
	 * The {@link LockStoreException} of a command sent through Lettuce without blocking
	 * that failed, or whose answer did not come within {@code timeout}.
	 */
	private LockStoreException failure(String operation, String key, Duration timeout, Throwable ex) {
		return (ex instanceof TimeoutException)
				? new LockStoreException(key,
						"Redis lock store could not " + operation + " lock '" + key + "': Redis did not answer within "
								+ timeout.toMillis() + " ms (lock.redis.timeout)",
						ex)
				: new LockStoreException(key, "Redis lock store failed to " + operation + " lock '" + key + "'",
						translate(ex));
	}

	/**
	 * Run a blocking operation on {@link Schedulers#boundedElastic()}, never on the
	 * subscriber's thread.
	 */
	private static <T> Mono<T> blocking(Callable<T> operation) {
		return Mono.fromCallable(operation).subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Run an operation through Lettuce, within the timeout, or else through the
	 * templates.
	 */
	private <T> @Nullable T call(String operation, String key, LettuceCall<T> lettuceCall,
			TemplateCall<T> templateCall) {
		LettuceLockCommands lettuce = this.lettuce;
		if (lettuce == null) {
			return template(operation, key, templateCall);
		}
		long started = System.nanoTime();
		long deadline = started + this.timeout.toNanos();
		return lettuce(operation, key, started, deadline, () -> lettuceCall.call(lettuce, deadline));
	}

	private <T> @Nullable T lettuce(String operation, String key, long started, long deadline,
			LettuceOperation<T> call) {
		try {
			return call.call();
		}
		catch (TimeoutException ex) {
			long waited = Duration.ofNanos(System.nanoTime() - started).toMillis();
			if (logger.isDebugEnabled()) {
				logger.debug("Redis did not answer within " + waited + " ms to " + operation + " lock " + "'"
						+ LogSafe.key(key) + "'; the command was cancelled");
			}
			throw new LockStoreException(key,
					"Redis lock store could not " + operation + " lock '" + key + "': Redis did not answer within "
							+ Duration.ofNanos(deadline - started).toMillis() + " ms (lock.redis.timeout)",
					ex);
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			throw new LockStoreException(key, "Redis lock store failed to " + operation + " lock '" + key + "'",
					translate(cause));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockStoreException(key,
					"Redis lock store was interrupted while waiting to " + operation + " lock '" + key + "'", ex);
		}
		catch (RuntimeException ex) {
			throw new LockStoreException(key, "Redis lock store failed to " + operation + " lock '" + key + "'",
					translate(ex));
		}
	}

	private Throwable translate(Throwable failure) {
		if (failure instanceof RuntimeException runtime && !(failure instanceof DataAccessException)) {
			DataAccessException translated = ((LettuceConnectionFactory) this.connectionFactory)
				.translateExceptionIfPossible(runtime);
			if (translated != null) {
				return translated;
			}
		}
		return failure;
	}

	private static <T> @Nullable T template(String operation, String key, TemplateCall<T> call) {
		try {
			return call.call();
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "Redis lock store failed to " + operation + " lock '" + key + "'", ex);
		}
	}

	private static RedisTemplate<String, byte[]> binaryTemplate(RedisConnectionFactory connectionFactory) {
		RedisTemplate<String, byte[]> template = new RedisTemplate<>();
		template.setConnectionFactory(connectionFactory);
		template.setKeySerializer(RedisSerializer.string());
		template.setValueSerializer(RedisSerializer.byteArray());
		template.setEnableDefaultSerializer(false);
		template.afterPropertiesSet();
		return template;
	}

	private static String millis(Duration ttl) {
		return Long.toString(Math.max(1, ttl.toMillis()));
	}

	/**
	 * The state of a store's subscription to release notifications.
	 *
	 * @since 0.1.0
	 * @see RedisLockStore#getSubscriptionState()
	 */
	public enum SubscriptionState {

		/**
		 * No waiter has needed release notifications yet: nothing is subscribed.
		 */
		IDLE,

		/**
		 * The subscription is being opened for the first time, in the background.
		 */
		CONNECTING,

		/**
		 * Subscribed: releases are announced to this store's waiters.
		 */
		CONNECTED,

		/**
		 * The subscription failed or lost its connection, and is being opened again in
		 * the background; waiters poll meanwhile.
		 */
		DISCONNECTED

	}

	/**
	 * An operation through Lettuce, given its deadline.
	 */
	@FunctionalInterface
	private interface LettuceCall<T> {

		@Nullable T call(LettuceLockCommands lettuce, long deadline)
				throws TimeoutException, InterruptedException, ExecutionException;

	}

	/**
	 * An operation through Lettuce, its deadline known.
	 */
	@FunctionalInterface
	private interface LettuceOperation<T> {

		@Nullable T call() throws TimeoutException, InterruptedException, ExecutionException;

	}

	/**
	 * An operation through the templates.
	 */
	@FunctionalInterface
	private interface TemplateCall<T> {

		@Nullable T call();

	}

	/**
	 * What the store learned about its connection factory on first use.
	 */
	private record Topology(boolean cluster, @Nullable ShardedReleaseSubscriber sharded) {
	}

}
