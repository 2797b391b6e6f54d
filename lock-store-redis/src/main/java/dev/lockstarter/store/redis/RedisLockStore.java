package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ReactiveResultStoringLockStore;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.SharedLockStore;
import dev.lockstarter.store.StoredLock;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;

/**
 * {@link dev.lockstarter.store.LockStore} on Redis, through Spring Data Redis.
 * <p>
 * A lock is a string key holding its owner's token, with a millisecond expiry decided by
 * the Redis server's clock. Each operation is one Lua script, one round trip, and checks
 * the owner token atomically: only the owner releases, extends or stores a result, and a
 * failed acquisition changes nothing. Fencing tokens strictly increase per key and are
 * drawn only when first read, from the counter <code>lock:{...}:fence</code>, kept
 * {@value RedisLockScripts#FENCE_RETENTION_HOURS} hours after its last draw. Several keys
 * of one hash slot are acquired in one atomic script; keys of several slots of a Redis
 * Cluster, or with replica acknowledgements, one by one in order, those taken released by
 * the token when one is held. Permits and read/write locks keep their places, each with
 * its own expiry, in sorted sets beside the key's mutex, in its hash slot, one script per
 * operation too.
 * <p>
 * Releases are announced to waiters by pub/sub (sharded on a Redis Cluster reached
 * through Lettuce), and only for a lock that a waiter watched; waiters poll as well, so a
 * lost notification only delays them. {@link #subscribe} returns at once, and until the
 * subscription is open in the background the listener is not called.
 * {@link #tryAcquireOnRelease} is empty with replica acknowledgements, on a factory other
 * than Lettuce's sharing its connection, and while no connection is open. Every operation
 * waits for Redis at most the {@linkplain #setTimeout(Duration) timeout} on a
 * {@link LettuceConnectionFactory} (the factory's own timeouts with any other), then
 * fails with a {@link LockStoreException}.
 * <p>
 * Guarantees hold while Redis keeps its data: one primary, no failover that loses
 * acknowledged writes, and a {@code maxmemory-policy} of {@code noeviction}. The key
 * layout, the scripts, the client paths and the replica acknowledgements are described in
 * {@code docs/stores/redis.md}.
 *
 * @since 0.1.0
 */
public class RedisLockStore
		implements ReleaseHandoffLockStore, ResultStoringLockStore, MultiKeyLockStore, FencingOnDemandLockStore,
		ReactiveResultStoringLockStore, SharedLockStore, InspectableLockStore, DisposableBean {

	/** The default release channel. */
	public static final String DEFAULT_CHANNEL = "lock:released";

	/** The default key prefix, the part of a store key left outside its hash tag. */
	public static final String DEFAULT_KEY_PREFIX = "lock:";

	/** The default timeout of an operation. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	private final RedisCommandExecutor executor;

	private final ClientTimeouts timeouts;

	private final ReleaseNotifications notifications;

	private final ReplicaAcknowledgements replicaAcks = new ReplicaAcknowledgements();

	private final ExclusiveLocks locks;

	private final StoredResults results;

	private final MultiKeyLocks multiKey;

	private final SharedLocks shared;

	private final RedisLockInspection inspection;

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
		this.executor = RedisCommandExecutor.of(connectionFactory);
		this.timeouts = new ClientTimeouts(this.executor);
		RedisKeys keys = new RedisKeys(keyPrefix);
		this.notifications = new ReleaseNotifications(connectionFactory, this.executor, keys, channel);
		ScriptCalls calls = new ScriptCalls(keys, this.notifications);
		this.locks = new ExclusiveLocks(keys, this.executor, this.notifications, this.replicaAcks, calls);
		this.results = new StoredResults(this.executor, calls, this.replicaAcks, this.locks);
		this.multiKey = new MultiKeyLocks(keys, this.executor, this.notifications, this.replicaAcks);
		this.shared = new SharedLocks(keys, this.executor, this.notifications, this.replicaAcks);
		this.inspection = new RedisLockInspection(keys, this.executor, this.notifications);
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
		this.timeouts.setTimeout(timeout);
	}

	/**
	 * Return the longest time an operation waits for Redis.
	 * @return the timeout
	 * @since 0.1.0
	 */
	public Duration getTimeout() {
		return this.timeouts.getTimeout();
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
		this.timeouts.setReplySpin(replySpin);
	}

	/**
	 * Return the longest time a calling thread spins for Redis's answer: zero without
	 * Lettuce, or on a single processor.
	 * @return the spin time
	 * @since 0.1.0
	 */
	public Duration getReplySpin() {
		return this.timeouts.getReplySpin();
	}

	/**
	 * Set the number of replicas that must acknowledge an acquisition or an extension
	 * ({@code WAIT}) before it counts; 0 (the default) does not wait. Not supported on
	 * Redis Cluster.
	 * @param minReplicaAcks the number of replicas, 0 or more
	 */
	public void setMinReplicaAcks(int minReplicaAcks) {
		this.replicaAcks.setMinReplicaAcks(minReplicaAcks);
	}

	/**
	 * Set the longest time an acquisition or an extension waits for the replica
	 * acknowledgements of {@link #setMinReplicaAcks(int)}; 1 second by default. A call
	 * that waits for them may take up to this time on top of the
	 * {@linkplain #setTimeout(Duration) timeout}.
	 * @param replicaAckTimeout the timeout, positive
	 */
	public void setReplicaAckTimeout(Duration replicaAckTimeout) {
		this.replicaAcks.setTimeout(replicaAckTimeout);
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		return this.locks.acquire(key, token, ttl);
	}

	@Override
	public AcquireReply tryAcquireFenced(String key, String token, Duration ttl) {
		return this.locks.acquireFenced(key, token, ttl);
	}

	@Override
	public long fencingToken(String key, String token) {
		return this.locks.fencingToken(key, token);
	}

	@Override
	public boolean release(String key, String token) {
		return this.locks.release(key, token);
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		return this.locks.extend(key, token, ttl);
	}

	@Override
	public Duration timeToExpiry(String key) {
		return this.locks.timeToExpiry(key);
	}

	@Override
	public Mono<AcquireReply> tryAcquireReactive(String key, String token, Duration ttl) {
		return this.locks.acquireReactive(key, token, ttl);
	}

	@Override
	public Optional<CompletableFuture<AcquireReply>> tryAcquireOnRelease(String key, String token, Duration ttl) {
		return this.locks.acquireOnRelease(key, token, ttl);
	}

	@Override
	public Mono<Boolean> releaseReactive(String key, String token) {
		return this.locks.releaseReactive(key, token);
	}

	@Override
	public Mono<Boolean> extendReactive(String key, String token, Duration ttl) {
		return this.locks.extendReactive(key, token, ttl);
	}

	@Override
	public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
		return this.multiKey.extendAll(keys, tokens, ttl, this::extend);
	}

	@Override
	public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
		return this.multiKey.acquireAll(keys, token, ttl, this::tryAcquire);
	}

	@Override
	public boolean[] releaseAll(List<String> keys, String token) {
		return this.multiKey.releaseEach(keys, token);
	}

	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		return this.results.put(key, token, result, ttl);
	}

	@Override
	public AcquireReplyWithResult tryAcquireReadingResult(String key, String token, Duration ttl) {
		return this.results.acquireReading(key, token, ttl);
	}

	@Override
	public boolean releaseKeepingResult(String key, String token, byte[] result, Duration ttl) {
		return this.results.releaseKeeping(key, token, result, ttl);
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		return this.results.get(key);
	}

	@Override
	public Mono<Boolean> putResultReactive(String key, String token, byte[] result, Duration ttl) {
		return this.results.putReactive(key, token, result, ttl);
	}

	@Override
	public Mono<byte[]> getResultReactive(String key) {
		return this.results.getReactive(key);
	}

	@Override
	public AcquireReply tryAcquirePermit(String key, String token, Duration ttl, int permits) {
		return this.shared.acquire(key, token, ttl, SharedLocks.Kind.PERMIT, permits);
	}

	@Override
	public AcquireReply tryAcquireRead(String key, String token, Duration ttl) {
		return this.shared.acquire(key, token, ttl, SharedLocks.Kind.READ, 0);
	}

	@Override
	public AcquireReply tryAcquireWrite(String key, String token, Duration ttl, Duration waitFor) {
		return this.shared.acquire(key, token, ttl, SharedLocks.Kind.WRITE, waitFor.toMillis());
	}

	@Override
	public boolean releaseShared(String key, String token) {
		return this.shared.release(key, token);
	}

	@Override
	public boolean extendShared(String key, String token, Duration ttl) {
		return this.shared.extend(key, token, ttl);
	}

	@Override
	public Duration sharedTimeToExpiry(String key) {
		return this.shared.timeToExpiry(key);
	}

	@Override
	public List<StoredLock> holders(String keyPrefix, int limit) {
		return this.inspection.holders(keyPrefix, limit);
	}

	@Override
	public boolean forceRelease(String key) {
		return this.inspection.forceRelease(key);
	}

	@Override
	public Subscription subscribe(String key, Runnable listener) {
		return this.notifications.subscribe(key, listener);
	}

	/**
	 * Return the state of the subscription to release notifications, for a health
	 * indicator: {@link SubscriptionState#IDLE} until a waiter first needs it.
	 * @return the state
	 * @since 0.1.0
	 */
	public SubscriptionState getSubscriptionState() {
		return this.notifications.state();
	}

	/**
	 * Return the channel on which releases are announced, except on a Redis Cluster
	 * reached through Lettuce, where each lock has its own sharded channel.
	 * @return the channel
	 */
	public String getChannel() {
		return this.notifications.getChannel();
	}

	/**
	 * Stop the background work of the store: the subscription to release notifications
	 * and its retries, and the threads that obtain connections. The connection factory is
	 * left alone.
	 */
	@Override
	public void destroy() {
		this.notifications.destroy();
		this.executor.destroy();
	}

	/**
	 * The state of a store's subscription to release notifications.
	 *
	 * @since 0.1.0
	 * @see RedisLockStore#getSubscriptionState()
	 */
	public enum SubscriptionState {

		/** No waiter has needed release notifications yet: nothing is subscribed. */
		IDLE,

		/** The subscription is being opened for the first time, in the background. */
		CONNECTING,

		/** Subscribed: releases are announced to this store's waiters. */
		CONNECTED,

		/**
		 * The subscription failed or lost its connection, and is being opened again in
		 * the background; waiters poll meanwhile.
		 */
		DISCONNECTED

	}

}
