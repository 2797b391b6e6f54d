package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import io.lettuce.core.ConnectionState;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.util.ClassUtils;

/**
 * The subscription to the store's classic release channel ({@code SUBSCRIBE}), through
 * any Spring Data Redis connection factory. With Lettuce, the subscription returns once
 * Redis confirms it, and Lettuce reconnects and subscribes again by itself after a lost
 * connection; with Jedis, it holds the thread while it lasts.
 */
final class ChannelReleaseSubscriber extends ReleaseSubscriber {

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ChannelReleaseSubscriber.class.getClassLoader());

	private final RedisConnectionFactory connectionFactory;

	private final byte[] channel;

	private final Listener listener;

	private volatile @Nullable RedisConnection connection;

	/** Whether Redis confirmed the subscription on {@link #connection}. */
	private volatile boolean confirmed;

	/** Whether the subscription on {@link #connection} was asked to end. */
	private final AtomicBoolean ended = new AtomicBoolean();

	/**
	 * Create a subscriber.
	 * @param connectionFactory the store's connection factory
	 * @param channel the release channel
	 * @param released called with the message of each release, the released lock key
	 */
	ChannelReleaseSubscriber(RedisConnectionFactory connectionFactory, String channel, Consumer<String> released) {
		super("channel '" + channel + "'");
		this.connectionFactory = connectionFactory;
		this.channel = channel.getBytes(StandardCharsets.UTF_8);
		this.listener = new Listener(released);
	}

	@Override
	protected void open() {
		this.confirmed = false;
		this.ended.set(false);
		RedisConnection opened = this.connectionFactory.getConnection();
		this.connection = opened;
		if (!isClosed()) {
			opened.subscribe(this.listener, this.channel);
		}
	}

	@Override
	protected boolean isHeld() {
		RedisConnection held = this.connection;
		if (held == null || !held.isSubscribed()) {
			return false;
		}
		return !LETTUCE_PRESENT || !LettucePubSub.isClosed(held);
	}

	@Override
	protected boolean isConnected() {
		RedisConnection held = this.connection;
		return held != null && (!LETTUCE_PRESENT || LettucePubSub.isOpen(held));
	}

	@Override
	protected void release() {
		RedisConnection held = this.connection;
		this.connection = null;
		if (held != null) {
			try {
				held.close();
			}
			catch (RuntimeException ex) {
				this.logger.debug("Could not close the release subscription's connection", ex);
			}
		}
	}

	@Override
	protected void stopOpening() {
		// A blocking subscription (Jedis) returns once unsubscribed. Before Redis
		// confirmed the subscription, the SUBSCRIBE may not even be sent yet: an
		// UNSUBSCRIBE written now could reach Redis first, end the blocking loop on its
		// reply and leave the connection subscribed, with the SUBSCRIBE's reply unread,
		// for the next borrower of a pooled connection. The confirmation ends such a
		// subscription instead. Lettuce keeps the order of the commands of one
		// connection, and its subscription is ended from here only.
		if (this.confirmed || !blocking(this.connection)) {
			endSubscription();
		}
	}

	@Override
	protected boolean interruptible() {
		// A blocking subscription ends through its unsubscription only
		return !blocking(this.connection);
	}

	/**
	 * The commands of the subscribed connection, so that a command answering a release is
	 * sent by the thread that read it, without waking another: only while Lettuce holds
	 * the subscription, open, on a primary that lets a subscribed connection run other
	 * commands (RESP3); else {@code null}.
	 * @return the commands, or {@code null}
	 */
	@Nullable RedisClusterAsyncCommands<byte[], byte[]> subscribedCommands() {
		RedisConnection held = this.connection;
		return (held != null && LETTUCE_PRESENT) ? LettucePubSub.commands(held) : null;
	}

	private void confirmed() {
		subscribed();
		this.confirmed = true;
		// On the thread that holds a blocking subscription: ending it here is safe
		if (isClosed() && blocking(this.connection)) {
			endSubscription();
		}
	}

	private static boolean blocking(@Nullable RedisConnection connection) {
		return connection != null && !(LETTUCE_PRESENT && LettucePubSub.isLettuce(connection));
	}

	private void endSubscription() {
		RedisConnection held = this.connection;
		if (held != null && this.ended.compareAndSet(false, true)) {
			try {
				org.springframework.data.redis.connection.Subscription subscription = held.getSubscription();
				if (subscription != null) {
					subscription.close();
				}
			}
			catch (RuntimeException ex) {
				this.logger.debug("Could not end the release subscription", ex);
			}
		}
	}

	/**
	 * Wakes the waiters of each released key, on the connection's thread, and records
	 * each confirmation of the subscription.
	 */
	private final class Listener implements MessageListener, SubscriptionListener {

		private final Consumer<String> released;

		Listener(Consumer<String> released) {
			this.released = released;
		}

		@Override
		public void onMessage(Message message, byte @Nullable [] pattern) {
			this.released.accept(new String(message.getBody(), StandardCharsets.UTF_8));
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			confirmed();
		}

	}

	/**
	 * The state of a Lettuce pub/sub connection. Inner class to keep Lettuce optional.
	 */
	private static final class LettucePubSub {

		static boolean isLettuce(RedisConnection connection) {
			return connection instanceof LettuceConnection;
		}

		static boolean isOpen(RedisConnection connection) {
			RedisChannelHandler<?, ?> handler = handler(connection);
			return handler == null || handler.isOpen();
		}

		static boolean isClosed(RedisConnection connection) {
			RedisChannelHandler<?, ?> handler = handler(connection);
			return handler != null && handler.isClosed();
		}

		@SuppressWarnings("unchecked")
		static @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands(RedisConnection connection) {
			if (handler(connection) instanceof StatefulRedisConnectionImpl<?, ?> stateful && stateful.isOpen()) {
				ConnectionState state = stateful.getConnectionState();
				if (state.getNegotiatedProtocolVersion() == ProtocolVersion.RESP3 && "master".equals(state.getRole())) {
					return (RedisClusterAsyncCommands<byte[], byte[]>) stateful.async();
				}
			}
			return null;
		}

		private static @Nullable RedisChannelHandler<?, ?> handler(RedisConnection connection) {
			if (connection instanceof LettuceConnection lettuce && connection.isSubscribed()
					&& lettuce.getNativeConnection() instanceof RedisPubSubAsyncCommands<?, ?> pubSub
					&& pubSub.getStatefulConnection() instanceof RedisChannelHandler<?, ?> handler) {
				return handler;
			}
			return null;
		}

	}

}
