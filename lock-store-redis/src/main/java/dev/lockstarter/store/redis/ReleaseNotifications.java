package dev.lockstarter.store.redis;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ReleaseListeners;
import dev.lockstarter.store.ReleaseNotifyingLockStore.Subscription;
import dev.lockstarter.store.redis.RedisLockStore.SubscriptionState;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * The store's release notifications: the waiters of this JVM, the watched mark their
 * attempts ask for, the channel a release is announced on, and the subscription that
 * delivers announcements, learned with the deployment's topology on first use.
 * <p>
 * On a Redis Cluster reached through Lettuce, each lock has its own sharded channel
 * (<code>lock:{...}:released</code>), subscribed by a {@link ShardedReleaseSubscriber}
 * while a waiter waits for it. Elsewhere every release goes to one classic channel,
 * subscribed once by a {@link ChannelReleaseSubscriber} after the first wait. Both open
 * in the background: no caller waits for them, and waiters poll while they are not open.
 */
final class ReleaseNotifications {

	private final RedisConnectionFactory connectionFactory;

	private final RedisCommandExecutor executor;

	private final RedisKeys keys;

	private final String channel;

	private final ReleaseListeners listeners = new ReleaseListeners();

	/**
	 * Set once, without a lock: a reactive waiter reaches it on a thread that must not
	 * block, even for a moment.
	 */
	private final AtomicReference<@Nullable ChannelReleaseSubscriber> channelSubscriber = new AtomicReference<>();

	/** Set once, without a lock, as {@link #channelSubscriber}. */
	private final AtomicReference<@Nullable RedisTopology> topology = new AtomicReference<>();

	private volatile boolean destroyed;

	ReleaseNotifications(RedisConnectionFactory connectionFactory, RedisCommandExecutor executor, RedisKeys keys,
			String channel) {
		this.connectionFactory = connectionFactory;
		this.executor = executor;
		this.keys = keys;
		this.channel = channel;
	}

	/**
	 * Return what the store knows of its deployment: the executor asks Redis only for a
	 * factory other than Lettuce's, which tells without a connection, and no lock is held
	 * meanwhile.
	 * @param operation the operation that needs to know
	 * @return the topology
	 */
	RedisTopology topology(RedisOperation operation) {
		RedisTopology known = this.topology.get();
		if (known == null) {
			known = this.executor.detectTopology(operation, this.listeners::released);
			if (!this.topology.compareAndSet(null, known)) {
				RedisTopology detected = this.topology.get();
				Assert.state(detected != null, "The topology, once set, is kept");
				known = detected;
			}
		}
		return known;
	}

	/**
	 * Return whether a waiter of this JVM listens for the release of a lock.
	 * @param lockKey the Redis key of the lock
	 * @return whether watched
	 */
	boolean isWatched(String lockKey) {
		return this.listeners.isWatched(lockKey);
	}

	/**
	 * Return the script argument that asks an acquisition to mark a lock found held as
	 * watched: {@code "1"} when a waiter of this JVM listens for its release.
	 * @param lockKey the Redis key of the lock
	 * @return the flag
	 */
	String watch(String lockKey) {
		return isWatched(lockKey) ? "1" : "0";
	}

	/**
	 * Return the channel on which the release of a lock is announced.
	 * @param key the store key
	 * @param topology the deployment
	 * @return the lock's sharded channel, or the store's channel
	 */
	String channel(String key, RedisTopology topology) {
		return (topology.sharded() != null) ? this.keys.related(key, "released") : this.channel;
	}

	String getChannel() {
		return this.channel;
	}

	/**
	 * Register a waiter for the release of a lock, and start the subscription that
	 * delivers it, in the background.
	 * @param key the store key
	 * @param listener called when the lock is released
	 * @return the registration, to close when the waiter stops waiting
	 */
	Subscription subscribe(String key, Runnable listener) {
		Subscription subscription = this.listeners.add(this.keys.lockKey(key), listener);
		RedisTopology known;
		try {
			known = topology(new RedisOperation("subscribe to", key));
		}
		catch (LockStoreException ex) {
			// Without a topology (a factory other than Lettuce's that cannot connect),
			// waiters poll; the next wait tries again.
			return subscription;
		}
		ShardedReleaseSubscriber sharded = known.sharded();
		if (sharded != null) {
			String shardedChannel = this.keys.related(key, "released");
			sharded.subscribe(shardedChannel);
			AtomicBoolean closed = new AtomicBoolean();
			return () -> {
				if (closed.compareAndSet(false, true)) {
					subscription.close();
					sharded.unsubscribe(shardedChannel);
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
	 * Return the subscription to the classic channel, if one was created.
	 * @return the subscriber, or {@code null}
	 */
	@Nullable ChannelReleaseSubscriber channelSubscriberIfCreated() {
		return this.channelSubscriber.get();
	}

	SubscriptionState state() {
		RedisTopology known = this.topology.get();
		ReleaseSubscriber subscriber = (known != null && known.sharded() != null) ? known.sharded()
				: this.channelSubscriber.get();
		return (subscriber != null) ? subscriber.state() : SubscriptionState.IDLE;
	}

	/**
	 * Close the subscriptions and stop their retries.
	 */
	void destroy() {
		this.destroyed = true;
		// A subscriber created meanwhile is closed by its creator, which sees the flag
		ChannelReleaseSubscriber subscriber = this.channelSubscriber.get();
		if (subscriber != null) {
			subscriber.close();
		}
		RedisTopology known = this.topology.get();
		if (known != null && known.sharded() != null) {
			known.sharded().close();
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

}
