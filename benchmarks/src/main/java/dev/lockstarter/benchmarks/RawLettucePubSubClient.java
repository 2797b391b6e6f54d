package dev.lockstarter.benchmarks;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

/**
 * The reference for {@link HandoffLatency}: a waiting lock written directly on Lettuce,
 * with nothing between the wire and the waiter but one pub/sub message and one
 * {@code SET}.
 * <p>
 * {@code lock} sends {@code SET key token NX PX 30000} once; if the key is held, it
 * subscribes (once per client) to {@link #CHANNEL} and waits. The release is a
 * compare-and-delete script that also {@code PUBLISH}es the key on that channel. When the
 * message for the awaited key arrives, the pub/sub listener, on Lettuce's I/O thread,
 * sends the {@code SET} again on a second, ordinary connection, and the waiter counts as
 * acquired when that reply says {@code OK}: the acquisition time is taken in the reply's
 * callback, before any application thread is woken. The waiting thread also repeats the
 * {@code SET} every {@value #POLL_MILLIS} ms, as a safety net for a lost message.
 * <p>
 * Both connections share one I/O thread, so the listener writes the {@code SET} on the
 * thread it already runs on, without waking another one.
 * <p>
 * With {@code wakeWaiter}, a second reference: the listener sends the {@code SET} on the
 * subscribed connection itself (RESP3 lets a subscribed connection run any command), and
 * the acquisition counts when the waiting application thread has been woken by its reply
 * and reads the clock, as for the locks that hand a lease to their caller. It is what a
 * lock whose subscriber acquires on its waiter's behalf could reach: the subscriber's I/O
 * thread wakes for the message and for the reply, and the waiter once.
 * <p>
 * Used by one thread at a time, like the other {@link HandoffLock} clients.
 */
final class RawLettucePubSubClient implements HandoffLock.Client {

	/** The channel every release is published on; the message is the released key. */
	static final String CHANNEL = "handoff:raw:released";

	static final long POLL_MILLIS = 100;

	private static final String RELEASE = """
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  redis.call('DEL', KEYS[1])
			  redis.call('PUBLISH', ARGV[2], KEYS[1])
			  return 1
			end
			return 0
			""";

	private final ClientResources resources;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> commands;

	private final RedisAsyncCommands<String, String> async;

	private final SetArgs setArgs = SetArgs.Builder.nx().px(HandoffLock.TTL.toMillis());

	private final String releaseSha;

	private final Map<String, String> tokens = new HashMap<>();

	private StatefulRedisPubSubConnection<String, String> pubSub;

	/** The acquisition the listener works for, if any. */
	private volatile Attempt waiting;

	/** Whether the waiter thread is woken and reads the clock (see the class comment). */
	private final boolean wakeWaiter;

	RawLettucePubSubClient(String host, int port, boolean wakeWaiter) {
		this.wakeWaiter = wakeWaiter;
		this.resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1).build();
		this.client = RedisClient.create(this.resources, RedisURI.create(host, port));
		this.client.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP3).build());
		this.connection = this.client.connect();
		this.commands = this.connection.sync();
		this.async = this.connection.async();
		this.releaseSha = this.commands.scriptLoad(RELEASE);
	}

	@Override
	public void lock(String key) throws Exception {
		lockTimed(key);
	}

	@Override
	public long lockTimed(String key) throws Exception {
		String token = newToken();
		if ("OK".equals(this.commands.set(key, token, this.setArgs))) {
			long acquiredAt = System.nanoTime();
			this.tokens.put(key, token);
			return acquiredAt;
		}
		subscribe();
		Attempt attempt = new Attempt(key, token);
		this.waiting = attempt;
		try {
			// The release may have come before the subscription: try again once now.
			attempt.send();
			long deadline = System.nanoTime() + HandoffLock.MAX_WAIT.toNanos();
			while (true) {
				try {
					long acquiredAt = attempt.acquiredAt.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
					this.tokens.put(key, token);
					return this.wakeWaiter ? System.nanoTime() : acquiredAt;
				}
				catch (TimeoutException ex) {
					if (System.nanoTime() - deadline > 0) {
						throw new IllegalStateException("Did not acquire " + key + " within " + HandoffLock.MAX_WAIT,
								ex);
					}
					attempt.send();
				}
				catch (ExecutionException ex) {
					throw new IllegalStateException("Failed to acquire " + key, ex.getCause());
				}
			}
		}
		finally {
			this.waiting = null;
		}
	}

	@Override
	public void unlock(String key) {
		String token = this.tokens.remove(key);
		Long released = this.commands.evalsha(this.releaseSha, ScriptOutputType.INTEGER, new String[] { key }, token,
				CHANNEL);
		if (released == null || released != 1L) {
			throw new IllegalStateException("Lock " + key + " was no longer held");
		}
	}

	@Override
	public void close() {
		if (this.pubSub != null) {
			this.pubSub.close();
		}
		this.connection.close();
		this.client.shutdown();
		this.resources.shutdown();
	}

	private void subscribe() {
		if (this.pubSub != null) {
			return;
		}
		this.pubSub = this.client.connectPubSub();
		this.pubSub.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String channel, String message) {
				Attempt attempt = RawLettucePubSubClient.this.waiting;
				if (attempt != null && attempt.key.equals(message)) {
					attempt.send();
				}
			}

		});
		this.pubSub.sync().subscribe(CHANNEL);
	}

	private static String newToken() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		return Long.toHexString(random.nextLong()) + Long.toHexString(random.nextLong());
	}

	/**
	 * One waiting acquisition: its key, its token, and the time it succeeded.
	 */
	private final class Attempt {

		private final String key;

		private final String token;

		private final CompletableFuture<Long> acquiredAt = new CompletableFuture<>();

		Attempt(String key, String token) {
			this.key = key;
			this.token = token;
		}

		/**
		 * Send {@code SET key token NX PX ttl} without blocking; the first {@code OK}
		 * completes the attempt. A failed or refused {@code SET} leaves it to the next
		 * message or poll.
		 */
		void send() {
			if (this.acquiredAt.isDone()) {
				return;
			}
			RedisAsyncCommands<String, String> commands = RawLettucePubSubClient.this.wakeWaiter
					? RawLettucePubSubClient.this.pubSub.async() : RawLettucePubSubClient.this.async;
			commands.set(this.key, this.token, RawLettucePubSubClient.this.setArgs).whenComplete((reply, failure) -> {
				if ("OK".equals(reply)) {
					this.acquiredAt.complete(System.nanoTime());
				}
			});
		}

	}

}
