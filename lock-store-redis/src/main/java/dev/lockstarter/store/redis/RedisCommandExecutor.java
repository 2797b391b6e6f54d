package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.store.LockStoreException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * How the store sends its commands to Redis: one implementation per client path, chosen
 * once when the store is built ({@link #of}). Every method fails with a
 * {@link LockStoreException} that names the {@link RedisOperation}; scripts are sent as
 * {@code EVALSHA}, and as {@code EVAL} once when Redis does not know them.
 * <ul>
 * <li>{@link LettuceCommandExecutor}: Lettuce's asynchronous API, each call bounded by
 * the store's timeout whatever the factory's command timeout;</li>
 * <li>{@link TemplateCommandExecutor}: a {@code RedisTemplate}, for Jedis and any other
 * factory, bounded by the factory's own timeouts.</li>
 * </ul>
 */
interface RedisCommandExecutor {

	/** The Lettuce type whose presence enables the Lettuce executor. */
	String LETTUCE_TYPE_NAME = "io.lettuce.core.cluster.RedisClusterClient";

	/**
	 * Return the executor for a connection factory: Lettuce's own API on a
	 * {@link LettuceConnectionFactory}, a {@code RedisTemplate} on any other.
	 * @param connectionFactory the store's connection factory
	 * @return the executor
	 */
	static RedisCommandExecutor of(RedisConnectionFactory connectionFactory) {
		if (ClassUtils.isPresent(LETTUCE_TYPE_NAME, RedisCommandExecutor.class.getClassLoader())
				&& connectionFactory instanceof LettuceConnectionFactory lettuce) {
			return new LettuceCommandExecutor(lettuce);
		}
		return new TemplateCommandExecutor(connectionFactory);
	}

	/**
	 * Run a blocking operation on {@link Schedulers#boundedElastic()}, never on the
	 * subscriber's thread; a {@code null} answer completes empty.
	 * @param operation the operation
	 * @return its answer
	 */
	static <T> Mono<T> offloaded(Callable<@Nullable T> operation) {
		return Mono.<T>fromCallable(operation).subscribeOn(Schedulers.boundedElastic());
	}

	/**
	 * Set the longest time a call waits for Redis; ignored where the factory's own
	 * timeouts apply.
	 * @param timeout the timeout
	 */
	void setTimeout(Duration timeout);

	/**
	 * Set the longest time a blocking caller spins for an answer before it parks
	 * ({@link ReplyWait}); ignored where the client waits by itself.
	 * @param spin the spin time
	 */
	void setReplySpin(Duration spin);

	Duration getReplySpin();

	/**
	 * Learn whether the factory reaches a Redis Cluster, and how releases are announced
	 * there; may ask Redis.
	 * @param operation the operation that needs to know
	 * @param released called with each released lock key, by a sharded subscriber
	 * @return the topology
	 */
	RedisTopology detectTopology(RedisOperation operation, Consumer<String> released);

	/**
	 * {@code SET key value NX PX millis}.
	 * @param operation the operation
	 * @param key the key
	 * @param value the value
	 * @param millis the expiry in milliseconds
	 * @return whether the key was set
	 */
	boolean setIfAbsent(RedisOperation operation, byte[] key, byte[] value, long millis);

	/**
	 * Run a script.
	 * @param operation the operation
	 * @param call the script and its arguments
	 * @return its answer
	 */
	<T> @Nullable T eval(RedisOperation operation, ScriptCall<T> call);

	/**
	 * Run several scripts, each on keys of one hash slot, within one bound.
	 * @param operation the operation
	 * @param calls the scripts and their arguments
	 * @return their answers, in order
	 */
	<T> List<@Nullable T> evalEach(RedisOperation operation, List<ScriptCall<T>> calls);

	/**
	 * {@code GET key}.
	 * @param operation the operation
	 * @param key the key
	 * @return the value, or {@code null}
	 */
	byte @Nullable [] get(RedisOperation operation, byte[] key);

	/**
	 * Scan the keys that match a pattern, page by page: {@code SCAN} with {@code MATCH}
	 * and {@code COUNT}, on every primary of a Redis Cluster. Each page is one call,
	 * bounded as any other; a scan takes as many as the keyspace needs.
	 * @param operation the operation
	 * @param pattern the {@code MATCH} pattern
	 * @param count the {@code COUNT} of each page
	 * @param routePrefix the start of the keys the store may name (its key prefix), for a
	 * client that reaches a node by naming a key of its slots
	 * @param page called with the keys of each page, in no order, before the next page is
	 * asked for
	 */
	void scan(RedisOperation operation, byte[] pattern, int count, String routePrefix, Consumer<List<byte[]>> page);

	/**
	 * Run an acquire script on a connection of its own and, when it acquired,
	 * {@code WAIT} for replica acknowledgements on that connection ({@code WAIT} counts
	 * the writes of the connection it is sent on, and blocks it).
	 * @param operation the operation
	 * @param call the acquire script and its arguments
	 * @param replicas the replicas to wait for
	 * @param waitTimeout the longest time Redis waits for them
	 * @return the script's answer and the acknowledgements
	 */
	ReplicaAcknowledgements.Acknowledged evalThenWait(RedisOperation operation, ScriptCall<Long> call, int replicas,
			Duration waitTimeout);

	/**
	 * Run a script without blocking the subscriber's thread; the answer is signalled off
	 * the client's I/O thread, and a {@code nil} answer completes empty.
	 * @param operation the operation
	 * @param call the script and its arguments, made on subscription (where it may need
	 * to ask Redis, the template path makes it off the subscriber's thread)
	 * @return its answer
	 */
	<T> Mono<T> evalReactive(RedisOperation operation, Supplier<ScriptCall<T>> call);

	/**
	 * {@code GET key} without blocking the subscriber's thread, as {@link #evalReactive}.
	 * @param operation the operation
	 * @param key the key
	 * @return the value, empty if there is none
	 */
	Mono<byte[]> getReactive(RedisOperation operation, byte[] key);

	/**
	 * Send a script from the thread that read a release announcement, without blocking
	 * it: on the subscribed connection when it can run commands, else on an open shared
	 * connection. The future completes on the client's I/O thread, or fails with a
	 * {@link LockStoreException} when no answer came within the timeout.
	 * @param operation the operation
	 * @param subscriber the channel subscription, if any
	 * @param call the script and its arguments
	 * @return the answer, or empty when no open connection can send it without blocking
	 */
	<T> Optional<CompletableFuture<@Nullable T>> evalOnRelease(RedisOperation operation,
			@Nullable ChannelReleaseSubscriber subscriber, ScriptCall<T> call);

	/**
	 * Stop the executor's background work; the connection factory is left alone.
	 */
	void destroy();

}
