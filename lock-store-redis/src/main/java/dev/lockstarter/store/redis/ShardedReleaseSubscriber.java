package dev.lockstarter.store.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.StringCodec;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Sharded pub/sub subscriptions ({@code SSUBSCRIBE}, Redis 7) to the per-lock release
 * channels of a Redis Cluster, through Lettuce's cluster pub/sub connection, which sends
 * each {@code SSUBSCRIBE} to the node that owns the channel's slot. One connection serves
 * every waiter of the store; a channel is subscribed while at least one waiter waits for
 * its lock. The connection is opened on the subscriber's thread: a waiter only counts
 * itself in, and the channels counted before the connection opens are subscribed as soon
 * as it does. Only touched when Lettuce is on the classpath.
 */
final class ShardedReleaseSubscriber extends ReleaseSubscriber {

	private final RedisClusterClient client;

	private final Consumer<String> released;

	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, Integer> waiters = new HashMap<>();

	private volatile @Nullable StatefulRedisClusterPubSubConnection<String, String> connection;

	private ShardedReleaseSubscriber(RedisClusterClient client, Consumer<String> released) {
		super("sharded channels of a Redis Cluster");
		this.client = client;
		this.released = released;
	}

	/**
	 * Return a subscriber for a connection factory of a Redis Cluster on Lettuce, or
	 * {@code null} for any other factory.
	 * @param connectionFactory the store's connection factory
	 * @param released called with the message of each release, the released lock key
	 * @return the subscriber, or {@code null}
	 */
	static @Nullable ShardedReleaseSubscriber of(RedisConnectionFactory connectionFactory, Consumer<String> released) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce && lettuce.isClusterAware()
				&& lettuce.getNativeClient() instanceof RedisClusterClient client) {
			return new ShardedReleaseSubscriber(client, released);
		}
		return null;
	}

	/**
	 * Count one more waiter on a channel, subscribing to it for the first if the
	 * connection is open. Never blocks on Redis.
	 * @param channel the sharded channel
	 */
	void subscribe(String channel) {
		this.lock.lock();
		try {
			int count = this.waiters.getOrDefault(channel, 0);
			this.waiters.put(channel, count + 1);
			StatefulRedisClusterPubSubConnection<String, String> open = this.connection;
			if (count == 0 && open != null) {
				open.async().ssubscribe(channel);
			}
		}
		finally {
			this.lock.unlock();
		}
		start();
	}

	/**
	 * Count one waiter less on a channel, unsubscribing from it after the last.
	 * @param channel the sharded channel
	 */
	void unsubscribe(String channel) {
		this.lock.lock();
		try {
			Integer count = this.waiters.get(channel);
			if (count == null) {
				return;
			}
			if (count > 1) {
				this.waiters.put(channel, count - 1);
				return;
			}
			this.waiters.remove(channel);
			StatefulRedisClusterPubSubConnection<String, String> open = this.connection;
			if (open != null && open.isOpen()) {
				open.async().sunsubscribe(channel);
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	protected void open() {
		StatefulRedisClusterPubSubConnection<String, String> opened = this.client.connectPubSub(StringCodec.UTF8);
		opened.setNodeMessagePropagation(true);
		opened.addListener(new RedisClusterPubSubAdapter<>() {

			@Override
			public void smessage(RedisClusterNode node, String channel, String message) {
				ShardedReleaseSubscriber.this.released.accept(message);
			}

		});
		this.lock.lock();
		try {
			this.connection = opened;
			if (isClosed()) {
				return;
			}
			String[] channels = this.waiters.keySet().toArray(String[]::new);
			if (channels.length > 0) {
				opened.async().ssubscribe(channels);
			}
		}
		finally {
			this.lock.unlock();
		}
		subscribed();
	}

	@Override
	protected boolean isHeld() {
		StatefulRedisClusterPubSubConnection<String, String> open = this.connection;
		return open != null && !(open instanceof RedisChannelHandler<?, ?> handler && handler.isClosed());
	}

	@Override
	protected boolean isConnected() {
		StatefulRedisClusterPubSubConnection<String, String> open = this.connection;
		return open != null && open.isOpen();
	}

	@Override
	protected void release() {
		StatefulRedisClusterPubSubConnection<String, String> open;
		this.lock.lock();
		try {
			open = this.connection;
			this.connection = null;
		}
		finally {
			this.lock.unlock();
		}
		if (open != null) {
			try {
				open.closeAsync();
			}
			catch (RuntimeException ex) {
				this.logger.debug("Could not close the sharded release subscription's connection", ex);
			}
		}
	}

}
