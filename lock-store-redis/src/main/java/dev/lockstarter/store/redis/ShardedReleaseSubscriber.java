package dev.lockstarter.store.redis;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

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
 * its lock. Only touched when Lettuce is on the classpath.
 */
final class ShardedReleaseSubscriber {

	private final RedisClusterClient client;

	private final Consumer<String> released;

	private final ReentrantLock lock = new ReentrantLock();

	private final Map<String, Integer> waiters = new HashMap<>();

	private @Nullable StatefulRedisClusterPubSubConnection<String, String> connection;

	private ShardedReleaseSubscriber(RedisClusterClient client, Consumer<String> released) {
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
	 * Count one more waiter on a channel, subscribing to it for the first.
	 * @param channel the sharded channel
	 */
	void subscribe(String channel) {
		this.lock.lock();
		try {
			int count = this.waiters.getOrDefault(channel, 0);
			if (count == 0) {
				connection().async().ssubscribe(channel);
			}
			this.waiters.put(channel, count + 1);
		}
		finally {
			this.lock.unlock();
		}
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

	/**
	 * Close the connection.
	 */
	void close() {
		this.lock.lock();
		try {
			this.waiters.clear();
			if (this.connection != null) {
				this.connection.close();
				this.connection = null;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	private StatefulRedisClusterPubSubConnection<String, String> connection() {
		StatefulRedisClusterPubSubConnection<String, String> open = this.connection;
		if (open == null) {
			open = this.client.connectPubSub(StringCodec.UTF8);
			open.setNodeMessagePropagation(true);
			open.addListener(new RedisClusterPubSubAdapter<>() {

				@Override
				public void smessage(RedisClusterNode node, String channel, String message) {
					ShardedReleaseSubscriber.this.released.accept(message);
				}

			});
			this.connection = open;
		}
		return open;
	}

}
