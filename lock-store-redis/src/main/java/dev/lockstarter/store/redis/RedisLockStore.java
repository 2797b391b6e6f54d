package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.AcquireResult;
import dev.lockstarter.store.ReleaseListeners;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
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
 * <li>acquire: {@code SET key token NX PX ttl}; when acquired, the same script draws the
 * fencing token, and when the key is taken, it answers the holder's {@code PTTL};</li>
 * <li>release: compare-and-delete, {@code DEL} only if the value is the caller's token,
 * then {@code PUBLISH} of the key on the release channel;</li>
 * <li>extend: compare-and-extend, {@code PEXPIRE} only if the value is the caller's
 * token; any number of locks in one script with {@link #extendAll}.</li>
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
 * <b>Fencing tokens</b> come from a counter next to the lock,
 * <code>lock:{...}:fence</code>: the acquire script increments it and raises it to the
 * Redis server's clock in microseconds if it is behind. The counter expires
 * {@value #FENCE_RETENTION_HOURS} hours after the key's last acquisition, so that keys
 * used once do not accumulate. Tokens of one key strictly increase while its counter
 * lives, and after that as long as the server's clock has not moved back past the last
 * token issued: a later token is at least the server's time.
 * <p>
 * <b>Release notifications</b> are published on one channel (by default
 * {@code "lock:released"}), with the released key as message. One subscription
 * connection, opened on the first wait and shared by every waiter, dispatches them to the
 * waiters of that key. A lost notification only delays a waiter until its next poll.
 * <p>
 * <b>Redis Cluster.</b> Every script touches the keys of one lock only, so each runs on
 * the node that owns the lock's slot; {@link #extendAll} sends one script per slot. On a
 * cluster reached through Lettuce, releases are announced with sharded pub/sub
 * ({@code SPUBLISH}, Redis 7) on the lock's own channel,
 * <code>lock:{...}:released</code>, which only the nodes of that slot's shard see; a
 * waiter subscribes ({@code SSUBSCRIBE}) to its lock's channel while it waits, over one
 * cluster pub/sub connection of the store. Elsewhere, and on a cluster of Redis 6, the
 * classic channel above is used (a cluster broadcasts it to every node), or no
 * notification arrives at all: waiters always poll as well.
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
 * Guarantees hold while Redis keeps its data: one primary, no failover that loses
 * acknowledged writes, and a {@code maxmemory-policy} of {@code noeviction}. Expiry is
 * decided by the Redis server's clock with millisecond precision. The time a call may
 * block is bounded by the connection factory's command timeout
 * ({@code spring.data.redis.timeout}).
 *
 * @since 0.1.0
 */
public class RedisLockStore implements ReleaseNotifyingLockStore, ResultStoringLockStore, DisposableBean {

	/** The default release channel. */
	public static final String DEFAULT_CHANNEL = "lock:released";

	/** The default key prefix, the part of a store key left outside its hash tag. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** The Lettuce type whose presence enables the Lettuce-specific commands. */
	static final String LETTUCE_TYPE_NAME = "io.lettuce.core.cluster.RedisClusterClient";

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent(LETTUCE_TYPE_NAME,
			RedisLockStore.class.getClassLoader());

	static final int FENCE_RETENTION_HOURS = 24;

	private static final String FENCE_RETENTION_MILLIS = Long
		.toString(Duration.ofHours(FENCE_RETENTION_HOURS).toMillis());

	/**
	 * Acquired: returns the fencing token (positive). Held: returns {@code -(PTTL) - 1},
	 * so -1 when the holder's key has no expiry.
	 */
	static final RedisScript<Long> ACQUIRE = RedisScript.of("""
			if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			  local fence = redis.call('INCR', KEYS[2])
			  local now = redis.call('TIME')
			  local floor = now[1] .. string.format('%06d', tonumber(now[2]))
			  if fence < tonumber(floor) then
			    redis.call('SET', KEYS[2], floor)
			    fence = tonumber(floor)
			  end
			  redis.call('PEXPIRE', KEYS[2], ARGV[3])
			  return fence
			end
			local ttl = redis.call('PTTL', KEYS[1])
			if ttl < 0 then
			  ttl = 0
			end
			return -ttl - 1
			""", Long.class);

	/** Returns 1 when the caller's lock was deleted (and announced), else 0. */
	static final RedisScript<Long> RELEASE = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  redis.call('DEL', KEYS[1])
			  redis.call('PUBLISH', ARGV[2], KEYS[1])
			  return 1
			end
			return 0
			""", Long.class);

	/**
	 * {@link #RELEASE} announcing on the lock's sharded channel, ARGV[2], in the lock's
	 * slot. {@code pcall}: a server without sharded pub/sub (Redis 6) still releases.
	 */
	static final RedisScript<Long> RELEASE_SHARDED = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  redis.call('DEL', KEYS[1])
			  redis.pcall('SPUBLISH', ARGV[2], KEYS[1])
			  return 1
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

	/** Returns 1 when the caller holds the lock and its result is stored, else 0. */
	static final RedisScript<Long> PUT_RESULT = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
			  return 1
			end
			return 0
			""", Long.class);

	/**
	 * ARGV[1] is the TTL, ARGV[i + 1] the token of KEYS[i]; returns 1 or 0 for each key.
	 */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> EXTEND_ALL = RedisScript.of("""
			local extended = {}
			for i = 1, #KEYS do
			  if redis.call('GET', KEYS[i]) == ARGV[i + 1] then
			    extended[i] = redis.call('PEXPIRE', KEYS[i], ARGV[1])
			  else
			    extended[i] = 0
			  end
			end
			return extended
			""", List.class);

	private final RedisConnectionFactory connectionFactory;

	private final StringRedisTemplate redis;

	private final RedisTemplate<String, byte[]> binary;

	private final String channel;

	private final RedisKeys keys;

	private final ReleaseListeners listeners = new ReleaseListeners();

	private final ReentrantLock containerLock = new ReentrantLock();

	private @Nullable RedisMessageListenerContainer container;

	private volatile @Nullable Topology topology;

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
		this.keys = new RedisKeys(keyPrefix);
		this.channel = channel;
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
	 * {@link #setMinReplicaAcks(int)}; 1 second by default. Keep it below the connection
	 * factory's command timeout.
	 * @param replicaAckTimeout the timeout, positive
	 */
	public void setReplicaAckTimeout(Duration replicaAckTimeout) {
		Assert.notNull(replicaAckTimeout, "'replicaAckTimeout' must not be null");
		Assert.isTrue(!replicaAckTimeout.isNegative() && !replicaAckTimeout.isZero(),
				"'replicaAckTimeout' must be positive");
		this.replicaAckTimeout = replicaAckTimeout;
	}

	@Override
	public AcquireResult tryAcquire(String key, String token, Duration ttl) {
		if (this.minReplicaAcks > 0) {
			return tryAcquireAcknowledged(key, token, ttl);
		}
		Long answer = run("acquire", key, ACQUIRE, List.of(this.keys.lockKey(key), this.keys.related(key, "fence")),
				token, millis(ttl), FENCE_RETENTION_MILLIS);
		return acquireResult(answer);
	}

	@Override
	public boolean release(String key, String token) {
		Long answer;
		try {
			ShardedReleaseSubscriber sharded = topology().sharded();
			answer = (sharded != null)
					? this.redis.execute(RELEASE_SHARDED, List.of(this.keys.lockKey(key)), token,
							this.keys.related(key, "released"))
					: this.redis.execute(RELEASE, List.of(this.keys.lockKey(key)), token, this.channel);
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "Redis lock store failed to release lock '" + key + "'", ex);
		}
		return answer != null && answer == 1L;
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		Long answer = run("extend", key, EXTEND, List.of(this.keys.lockKey(key)), token, millis(ttl));
		return answer != null && answer == 1L;
	}

	@Override
	public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
		Assert.isTrue(keys.size() == tokens.size(), "'keys' and 'tokens' must have the same size");
		boolean[] extended = new boolean[keys.size()];
		if (keys.isEmpty()) {
			return extended;
		}
		try {
			if (!topology().cluster()) {
				extendAll(keys, tokens, ttl, allIndexes(keys.size()), extended);
				return extended;
			}
			// A cluster script may only touch keys of one slot
			Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
			for (int i = 0; i < keys.size(); i++) {
				int slot = ClusterSlotHashUtil.calculateSlot(this.keys.lockKey(keys.get(i)));
				bySlot.computeIfAbsent(slot, (s) -> new ArrayList<>()).add(i);
			}
			for (List<Integer> indexes : bySlot.values()) {
				extendAll(keys, tokens, ttl, indexes, extended);
			}
			return extended;
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(keys.get(0), "Redis lock store failed to extend " + keys.size() + " locks",
					ex);
		}
	}

	private void extendAll(List<String> keys, List<String> tokens, Duration ttl, List<Integer> indexes,
			boolean[] extended) {
		List<String> redisKeys = new ArrayList<>(indexes.size());
		List<String> args = new ArrayList<>(indexes.size() + 1);
		args.add(millis(ttl));
		for (int index : indexes) {
			redisKeys.add(this.keys.lockKey(keys.get(index)));
			args.add(tokens.get(index));
		}
		List<?> answer = this.redis.execute(EXTEND_ALL, redisKeys, args.toArray());
		for (int i = 0; i < indexes.size() && answer != null && i < answer.size(); i++) {
			extended[indexes.get(i)] = Long.valueOf(1L).equals(answer.get(i));
		}
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
		Long answer;
		try {
			answer = this.binary.execute(PUT_RESULT, List.of(this.keys.lockKey(key), this.keys.related(key, "result")),
					bytes(token), result, bytes(millis(ttl)));
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "Redis lock store failed to store the result of lock '" + key + "'", ex);
		}
		return answer != null && answer == 1L;
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		try {
			return this.binary.opsForValue().get(this.keys.related(key, "result"));
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "Redis lock store failed to read the result of lock '" + key + "'", ex);
		}
	}

	@Override
	public Subscription subscribe(String key, Runnable listener) {
		Subscription subscription = this.listeners.add(this.keys.lockKey(key), listener);
		try {
			ShardedReleaseSubscriber sharded = topology().sharded();
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
			ensureListening();
		}
		catch (RuntimeException ex) {
			// Waiters poll without notifications; the subscription is retried on the next
			// wait.
		}
		return subscription;
	}

	/**
	 * Return the channel on which releases are announced, except on a Redis Cluster
	 * reached through Lettuce, where each lock has its own sharded channel.
	 * @return the channel
	 */
	public String getChannel() {
		return this.channel;
	}

	@Override
	public void destroy() {
		this.containerLock.lock();
		try {
			if (this.container != null) {
				this.container.stop();
				this.container = null;
			}
			Topology known = this.topology;
			if (known != null && known.sharded() != null) {
				known.sharded().close();
			}
		}
		finally {
			this.containerLock.unlock();
		}
	}

	private void ensureListening() {
		if (this.container != null) {
			return;
		}
		this.containerLock.lock();
		try {
			if (this.container == null) {
				RedisMessageListenerContainer created = new RedisMessageListenerContainer();
				created.setConnectionFactory(this.connectionFactory);
				created.setRecoveryInterval(1000);
				// The listener only wakes waiters: run it on the connection's thread
				// rather than on
				// a new thread per message, the container's default, which every release
				// on any key
				// would pay for in every instance.
				created.setTaskExecutor(Runnable::run);
				created.addMessageListener(
						(message, pattern) -> this.listeners
							.released(new String(message.getBody(), StandardCharsets.UTF_8)),
						new ChannelTopic(this.channel));
				created.afterPropertiesSet();
				created.start();
				this.container = created;
			}
		}
		finally {
			this.containerLock.unlock();
		}
	}

	private AcquireResult tryAcquireAcknowledged(String key, String token, Duration ttl) {
		String lockKey = this.keys.lockKey(key);
		RuntimeException[] waitFailure = new RuntimeException[1];
		long[] replies;
		try {
			if (topology().cluster()) {
				throw new LockStoreException(key,
						"Redis lock store cannot wait for replica acknowledgements "
								+ "(min-replica-acks) on Redis Cluster; set lock.redis.min-replica-acks to 0",
						new IllegalStateException("WAIT on Redis Cluster"));
			}
			replies = this.redis.execute((RedisCallback<long[]>) (connection) -> {
				// A pipeline runs on a dedicated connection: WAIT never blocks the shared
				// one.
				connection.openPipeline();
				connection.scriptingCommands()
					.eval(bytes(ACQUIRE.getScriptAsString()), ReturnType.INTEGER, 2, bytes(lockKey),
							bytes(this.keys.related(key, "fence")), bytes(token), bytes(millis(ttl)),
							bytes(FENCE_RETENTION_MILLIS));
				Long acquired = (Long) connection.closePipeline().get(0);
				if (acquired == null || acquired <= 0) {
					return new long[] { (acquired != null) ? acquired : -1L, 0 };
				}
				try {
					connection.openPipeline();
					byte[][] wait = { bytes(Integer.toString(this.minReplicaAcks)),
							bytes(Long.toString(this.replicaAckTimeout.toMillis())) };
					if (!LETTUCE_PRESENT || !LettuceCommands.sendWait(connection, wait)) {
						connection.execute("WAIT", wait);
					}
					Object waited = connection.closePipeline().get(0);
					return new long[] { acquired, (waited instanceof Number number) ? number.longValue() : -1L };
				}
				catch (RuntimeException ex) {
					waitFailure[0] = ex;
					return new long[] { acquired, -1L };
				}
			}, true);
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "Redis lock store failed to acquire lock '" + key + "'", ex);
		}
		AcquireResult result = acquireResult((replies != null) ? replies[0] : null);
		long acks = (replies != null) ? replies[1] : -1L;
		if (result.isAcquired() && acks < this.minReplicaAcks) {
			// Acquired but not acknowledged: not counted as acquired, so it must not stay
			// behind.
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

	private boolean releaseQuietly(String key, String token) {
		try {
			release(key, token);
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private static AcquireResult acquireResult(@Nullable Long answer) {
		long value = (answer != null) ? answer : -1L;
		if (value > 0) {
			return AcquireResult.acquired(value);
		}
		return AcquireResult.held(Duration.ofMillis(-value - 1));
	}

	private Topology topology() {
		Topology known = this.topology;
		if (known == null) {
			this.containerLock.lock();
			try {
				known = this.topology;
				if (known == null) {
					known = detectTopology();
					this.topology = known;
				}
			}
			finally {
				this.containerLock.unlock();
			}
		}
		return known;
	}

	private Topology detectTopology() {
		ShardedReleaseSubscriber sharded = LETTUCE_PRESENT
				? ShardedReleaseSubscriber.of(this.connectionFactory, this.listeners::released) : null;
		if (sharded != null) {
			return new Topology(true, sharded);
		}
		Boolean cluster = this.redis
			.execute((RedisCallback<Boolean>) (connection) -> connection instanceof RedisClusterConnection, true);
		return new Topology(Boolean.TRUE.equals(cluster), null);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private Long run(String operation, String key, RedisScript<Long> script, List<String> keys, String... args) {
		try {
			return this.redis.execute(script, keys, (Object[]) args);
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
	 * What the store learned about its connection factory on first use.
	 */
	private record Topology(boolean cluster, @Nullable ShardedReleaseSubscriber sharded) {
	}

}
