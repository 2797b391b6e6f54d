package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The store's commands on a {@link LettuceConnectionFactory}, sent through Lettuce's
 * asynchronous API so that the caller waits for each answer until a deadline of its own,
 * whatever the factory's command timeout, and cancels the command when it passes; how it
 * waits, spinning first or not, is {@link ReplyWait}'s. Only touched when Lettuce is on
 * the classpath.
 * <p>
 * <b>Connections.</b> With a factory that shares its native connection (the default), the
 * shared connection is obtained once and kept: Lettuce reconnects it by itself, so a lock
 * operation never opens a connection on the caller's thread. Obtaining it the first time,
 * and again after it was closed, may block for Lettuce's connect timeout plus its command
 * timeout (the handshake), and while it does the factory holds its own lock; so it runs
 * on a daemon thread of this class, once for every caller that needs it, and each caller
 * waits for it only until its own deadline. A dedicated connection (the {@code WAIT} of
 * replica acknowledgements, or a factory that does not share its connection) is likewise
 * obtained on such a thread; one obtained after its caller gave up is released at once.
 */
final class LettuceLockCommands {

	/** Threads that obtain connections; more calls queue, each until its deadline. */
	private static final int CONNECTING_THREADS = 4;

	/**
	 * The SHA-1 of each script, read without the lock that
	 * {@code DefaultRedisScript.getSha1()} takes on every call, which an event-loop
	 * thread must not wait for.
	 */
	private static final Map<RedisScript<?>, String> sha1s = new ConcurrentHashMap<>();

	private final LettuceConnectionFactory connectionFactory;

	private final ThreadPoolExecutor connecting;

	private final ReentrantLock lock = new ReentrantLock();

	private volatile @Nullable Shared shared;

	private volatile ReplyWait replyWait = new ReplyWait(ReplyWait.DEFAULT_SPIN);

	private @Nullable CompletableFuture<Shared> sharing;

	LettuceLockCommands(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		AtomicInteger threads = new AtomicInteger();
		this.connecting = new ThreadPoolExecutor(CONNECTING_THREADS, CONNECTING_THREADS, 30, TimeUnit.SECONDS,
				new LinkedBlockingQueue<>(), (task) -> {
					Thread thread = new Thread(task, "lock-redis-connect-" + threads.incrementAndGet());
					thread.setDaemon(true);
					return thread;
				});
		this.connecting.allowCoreThreadTimeOut(true);
	}

	/**
	 * Set the longest time a caller spins for an answer before it parks; see
	 * {@link ReplyWait}.
	 * @param spin the spin time, zero to park at once
	 */
	void setReplySpin(Duration spin) {
		this.replyWait = new ReplyWait(spin);
	}

	Duration getReplySpin() {
		return this.replyWait.getSpin();
	}

	/**
	 * Run a script, by {@code EVALSHA}, and by {@code EVAL} once if Redis does not know
	 * it.
	 * @param script the script, answering a {@code Long} or a {@code List}
	 * @param keys the script's {@code KEYS}
	 * @param args the script's {@code ARGV}
	 * @param deadline the {@link System#nanoTime()} by which to have the answer
	 * @return the reply
	 */
	<T> @Nullable T eval(RedisScript<T> script, byte[][] keys, byte[][] args, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		try (Commands commands = commands(false, deadline)) {
			return eval(commands.async(), script, keys, args, deadline);
		}
	}

	/**
	 * Set a key to a value with an expiry unless it exists: {@code SET key value NX PX}.
	 * @param key the key
	 * @param value the value
	 * @param millis the expiry in milliseconds
	 * @param deadline the {@link System#nanoTime()} by which to have the answer
	 * @return whether the key was set
	 */
	boolean setIfAbsent(byte[] key, byte[] value, long millis, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		try (Commands commands = commands(false, deadline)) {
			return "OK".equals(await(commands.async().set(key, value, SetArgs.Builder.nx().px(millis)), deadline));
		}
	}

	/**
	 * Compute the SHA-1 of scripts ahead of their reactive use.
	 * @param scripts the scripts
	 */
	static void prepare(RedisScript<?>... scripts) {
		for (RedisScript<?> script : scripts) {
			sha1(script);
		}
	}

	private static String sha1(RedisScript<?> script) {
		String sha1 = sha1s.get(script);
		if (sha1 == null) {
			sha1 = script.getSha1();
			sha1s.put(script, sha1);
		}
		return sha1;
	}

	/**
	 * Run a script without blocking, by {@code EVALSHA}, and by {@code EVAL} once if
	 * Redis does not know it, on the factory's shared connection. Cancelling the returned
	 * {@code Mono} cancels the command. Not bounded here: the caller sets the timeout.
	 * @param script the script, answering a {@code Long} or a {@code List}
	 * @param keys the script's {@code KEYS}
	 * @param args the script's {@code ARGV}
	 * @return the reply, or {@code null} when this factory does not share its connection
	 * (the caller then runs the blocking path elsewhere)
	 */
	<T> @Nullable Mono<T> evalReactive(RedisScript<T> script, byte[][] keys, byte[][] args) {
		Mono<Shared> connection = sharedReactive();
		if (connection == null) {
			return null;
		}
		ScriptOutputType type = outputType(script);
		return connection.flatMap((shared) -> Mono
			.<T>fromFuture(() -> shared.async().<T>evalsha(sha1(script), type, keys, args).toCompletableFuture())
			.onErrorResume(RedisNoScriptException.class, (ex) -> Mono
				.fromFuture(() -> shared.async().<T>eval(bytes(script), type, keys, args).toCompletableFuture())));
	}

	/**
	 * Run a script without blocking the calling thread, for a command that answers a
	 * release announcement: on the connection of the release subscription when it can run
	 * it, so that the I/O thread that read the announcement writes the command itself,
	 * without waking another thread; else on the shared connection, if it is open. By
	 * {@code EVALSHA}, and by {@code EVAL} once if Redis does not know the script. The
	 * future completes on Lettuce's I/O thread; when no answer has come within the
	 * timeout, it fails with a {@link TimeoutException}, on the timer of the connection's
	 * client resources (which adds a task to a queue, where a scheduled executor would
	 * wake a thread for every command), and the command is cancelled.
	 * @param subscriber the release subscription, or {@code null}
	 * @param script the script, answering a {@code Long} or a {@code List}
	 * @param keys the script's {@code KEYS}
	 * @param args the script's {@code ARGV}
	 * @param timeout how long to wait for the answer
	 * @return the reply, or {@code null} when neither connection is open
	 */
	<T> @Nullable CompletableFuture<T> evalAnswering(@Nullable ChannelReleaseSubscriber subscriber,
			RedisScript<T> script, byte[][] keys, byte[][] args, Duration timeout) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = (subscriber != null) ? subscriber.subscribedCommands()
				: null;
		if (commands == null) {
			Shared known = this.shared;
			if (known == null || !known.isUsable() || !this.connectionFactory.getShareNativeConnection()) {
				return null;
			}
			commands = known.async();
		}
		StatefulConnection<?, ?> connection = statefulConnection(commands);
		if (connection == null) {
			return null;
		}
		return new Answering<T>(commands, script, keys, args).send(connection.getResources().timer(), timeout);
	}

	/**
	 * Read a string key without blocking, on the factory's shared connection. Cancelling
	 * the returned {@code Mono} cancels the command. Not bounded here: the caller sets
	 * the timeout.
	 * @param key the key
	 * @return the value, empty if there is none, or {@code null} when this factory does
	 * not share its connection (the caller then runs the blocking path elsewhere)
	 */
	@Nullable Mono<byte[]> getReactive(byte[] key) {
		Mono<Shared> connection = sharedReactive();
		if (connection == null) {
			return null;
		}
		return connection.flatMap((shared) -> Mono.fromFuture(() -> shared.async().get(key).toCompletableFuture()));
	}

	/**
	 * The shared connection, obtained on a thread of this class, never the subscriber's
	 * (whose wait for the factory's lock is moved off its thread too); cancelling does
	 * not cancel obtaining it, the next caller may use it. {@code null} when the factory
	 * does not share its connection.
	 */
	private @Nullable Mono<Shared> sharedReactive() {
		if (!this.connectionFactory.getShareNativeConnection()) {
			return null;
		}
		Shared known = this.shared;
		Mono<Shared> connection = (known != null && known.isUsable()) ? Mono.just(known)
				: Mono.fromFuture(this::sharedAsync, true).subscribeOn(Schedulers.boundedElastic());
		return connection.doOnNext((shared) -> this.shared = shared);
	}

	/**
	 * Run a script once for each set of keys and arguments, all at once, and wait for
	 * every reply until the deadline.
	 * @param script the script, answering a {@code Long} or a {@code List}
	 * @param keys the {@code KEYS} of each run
	 * @param args the {@code ARGV} of each run
	 * @param deadline the {@link System#nanoTime()} by which to have every answer
	 * @return the replies, in order
	 */
	<T> List<@Nullable T> evalEach(RedisScript<T> script, List<byte[][]> keys, List<byte[][]> args, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		ScriptOutputType type = outputType(script);
		try (Commands commands = commands(false, deadline)) {
			List<RedisFuture<T>> sent = new ArrayList<>(keys.size());
			for (int i = 0; i < keys.size(); i++) {
				sent.add(commands.async().evalsha(sha1(script), type, keys.get(i), args.get(i)));
			}
			List<@Nullable T> replies = new ArrayList<>(keys.size());
			for (int i = 0; i < keys.size(); i++) {
				try {
					replies.add(await(sent.get(i), deadline));
				}
				catch (ExecutionException ex) {
					if (!(ex.getCause() instanceof RedisNoScriptException)) {
						cancel(sent);
						throw ex;
					}
					replies.add(await(commands.async().eval(bytes(script), type, keys.get(i), args.get(i)), deadline));
				}
				catch (TimeoutException | InterruptedException ex) {
					cancel(sent);
					throw ex;
				}
			}
			return replies;
		}
	}

	/**
	 * Read a string key.
	 * @param key the key
	 * @param deadline the {@link System#nanoTime()} by which to have the answer
	 * @return the value, or {@code null}
	 */
	byte @Nullable [] get(byte[] key, long deadline) throws TimeoutException, InterruptedException, ExecutionException {
		try (Commands commands = commands(false, deadline)) {
			return await(commands.async().get(key), deadline);
		}
	}

	/**
	 * Run a script on a dedicated connection, then, if {@code proceed} accepts its reply,
	 * {@code WAIT} for replica acknowledgements on the same connection: {@code WAIT}
	 * blocks the connection it is sent on, and counts the writes made on it.
	 * @param script the script
	 * @param keys the script's {@code KEYS}
	 * @param args the script's {@code ARGV}
	 * @param replicas the replicas to wait for
	 * @param waitTimeout the longest time Redis waits for them, in milliseconds
	 * @param deadline the {@link System#nanoTime()} by which to have both answers
	 * @param waitFailure receives the failure of {@code WAIT}, if it fails
	 * @return the script's reply and the number of acknowledgements, -1 if not waited or
	 * failed
	 */
	long[] evalThenWait(RedisScript<Long> script, byte[][] keys, byte[][] args, int replicas, long waitTimeout,
			long deadline, Exception[] waitFailure) throws TimeoutException, InterruptedException, ExecutionException {
		try (Commands commands = commands(true, deadline)) {
			Long reply = eval(commands.async(), script, keys, args, deadline);
			long value = (reply != null) ? reply : -1L;
			if (value <= 0) {
				return new long[] { value, -1L };
			}
			try {
				// Redis answers WAIT only when the replicas did or its timeout passed
				Long acks = ReplyWait.PARKING.await(commands.async().waitForReplication(replicas, waitTimeout),
						deadline);
				return new long[] { value, (acks != null) ? acks : -1L };
			}
			catch (ExecutionException | TimeoutException ex) {
				waitFailure[0] = ex;
				return new long[] { value, -1L };
			}
		}
	}

	/**
	 * Stop the threads that obtain connections. The shared connection belongs to the
	 * factory and stays open.
	 */
	void destroy() {
		this.connecting.shutdownNow();
	}

	private <T> @Nullable T eval(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript<T> script,
			byte[][] keys, byte[][] args, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		ScriptOutputType type = outputType(script);
		try {
			return await(commands.evalsha(sha1(script), type, keys, args), deadline);
		}
		catch (ExecutionException ex) {
			if (!(ex.getCause() instanceof RedisNoScriptException)) {
				throw ex;
			}
			return await(commands.eval(bytes(script), type, keys, args), deadline);
		}
	}

	private static ScriptOutputType outputType(RedisScript<?> script) {
		Class<?> type = script.getResultType();
		return (type != null && List.class.isAssignableFrom(type)) ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
	}

	private <T> T await(Future<T> future, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		return this.replyWait.await(future, deadline);
	}

	private static void cancel(List<? extends Future<?>> futures) {
		futures.forEach((future) -> future.cancel(false));
	}

	private Commands commands(boolean dedicated, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		if (dedicated || !this.connectionFactory.getShareNativeConnection()) {
			return dedicated(deadline);
		}
		Shared known = this.shared;
		if (known != null && known.isUsable()) {
			return known;
		}
		CompletableFuture<Shared> attempt = sharedAsync();
		// Waiting does not cancel the attempt: the next caller may still use it
		Shared opened = attempt.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		this.shared = opened;
		return opened;
	}

	/**
	 * Return the shared connection, or the attempt to obtain it on a thread of this
	 * class, started now unless one is under way.
	 */
	private CompletableFuture<Shared> sharedAsync() {
		Shared known = this.shared;
		if (known != null && known.isUsable()) {
			return CompletableFuture.completedFuture(known);
		}
		CompletableFuture<Shared> attempt;
		this.lock.lock();
		try {
			attempt = this.sharing;
			if (attempt == null || attempt.isCompletedExceptionally()
					|| (attempt.isDone() && !attempt.join().isUsable())) {
				CompletableFuture<Shared> started = new CompletableFuture<>();
				this.connecting.execute(() -> {
					try {
						started.complete(openShared());
					}
					catch (Throwable ex) {
						started.completeExceptionally(ex);
					}
				});
				this.sharing = started;
				attempt = started;
			}
		}
		finally {
			this.lock.unlock();
		}
		return attempt;
	}

	private Shared openShared() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			RedisClusterAsyncCommands<byte[], byte[]> commands = ((LettuceConnection) connection).getNativeConnection();
			return new Shared(commands, statefulConnection(commands));
		}
	}

	private static @Nullable StatefulConnection<?, ?> statefulConnection(RedisClusterAsyncCommands<?, ?> commands) {
		if (commands instanceof RedisAsyncCommands<?, ?> standalone) {
			return standalone.getStatefulConnection();
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return cluster.getStatefulConnection();
		}
		return null;
	}

	private Commands dedicated(long deadline) throws TimeoutException, InterruptedException, ExecutionException {
		CompletableFuture<Dedicated> attempt = new CompletableFuture<>();
		this.connecting.execute(() -> {
			if (attempt.isDone()) {
				// Its caller gave up while it queued
				return;
			}
			Dedicated opened = null;
			try {
				opened = openDedicated();
			}
			catch (Throwable ex) {
				attempt.completeExceptionally(ex);
			}
			if (opened != null && !attempt.complete(opened)) {
				opened.close();
			}
		});
		try {
			return attempt.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException | InterruptedException ex) {
			if (!attempt.completeExceptionally(new CancellationException())) {
				// Opened just now: release it
				Dedicated opened = attempt.getNow(null);
				if (opened != null) {
					opened.close();
				}
			}
			throw ex;
		}
	}

	private Dedicated openDedicated() {
		LettuceConnection connection = (LettuceConnection) this.connectionFactory.getConnection();
		try {
			// A pipelined connection runs on a connection of its own. The commands sent
			// through its native API still go out at once: only those sent through the
			// RedisConnection itself are held for the pipeline.
			connection.openPipeline();
			return new Dedicated(connection, connection.getNativeConnection());
		}
		catch (RuntimeException ex) {
			connection.close();
			throw ex;
		}
	}

	private static byte[] bytes(RedisScript<?> script) {
		return script.getScriptAsString().getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * A script sent without blocking, by {@code EVALSHA} and then, if Redis does not know
	 * it, by {@code EVAL}, until it is answered or its time is up.
	 */
	private static final class Answering<T> {

		private final CompletableFuture<T> answer = new CompletableFuture<>();

		private final RedisClusterAsyncCommands<byte[], byte[]> commands;

		private final RedisScript<T> script;

		private final byte[][] keys;

		private final byte[][] args;

		/** The command whose answer is awaited. */
		private volatile @Nullable RedisFuture<T> sent;

		Answering(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript<T> script, byte[][] keys,
				byte[][] args) {
			this.commands = commands;
			this.script = script;
			this.keys = keys;
			this.args = args;
		}

		CompletableFuture<T> send(Timer timer, Duration timeout) {
			try {
				Timeout expiry = timer.newTimeout((expired) -> expire(), timeout.toNanos(), TimeUnit.NANOSECONDS);
				this.answer.whenComplete((reply, failure) -> expiry.cancel());
				RedisFuture<T> first = this.commands.evalsha(sha1(this.script), outputType(this.script), this.keys,
						this.args);
				this.sent = first;
				first.whenComplete(this::evalshaAnswered);
			}
			catch (RuntimeException ex) {
				this.answer.completeExceptionally(ex);
			}
			return this.answer;
		}

		private void evalshaAnswered(@Nullable T reply, @Nullable Throwable failure) {
			if (!(failure instanceof RedisNoScriptException) || this.answer.isDone()) {
				complete(reply, failure);
				return;
			}
			try {
				RedisFuture<T> retry = this.commands.eval(bytes(this.script), outputType(this.script), this.keys,
						this.args);
				this.sent = retry;
				retry.whenComplete(this::complete);
			}
			catch (RuntimeException ex) {
				this.answer.completeExceptionally(ex);
			}
		}

		private void complete(@Nullable T reply, @Nullable Throwable failure) {
			if (failure != null) {
				this.answer.completeExceptionally(failure);
			}
			else {
				this.answer.complete(reply);
			}
		}

		private void expire() {
			if (this.answer.completeExceptionally(new TimeoutException())) {
				RedisFuture<T> awaited = this.sent;
				if (awaited != null) {
					awaited.cancel(false);
				}
			}
		}

	}

	/**
	 * Asynchronous commands for one operation, released when it ends.
	 */
	private interface Commands extends AutoCloseable {

		RedisClusterAsyncCommands<byte[], byte[]> async();

		@Override
		void close();

	}

	/**
	 * The factory's shared connection, kept while it is not closed.
	 */
	private record Shared(RedisClusterAsyncCommands<byte[], byte[]> async,
			@Nullable StatefulConnection<?, ?> connection) implements Commands {

		/**
		 * Whether the connection may still be used: Lettuce reconnects a connection that
		 * was not closed, so a disconnected one is still usable.
		 */
		boolean isUsable() {
			return !(this.connection instanceof RedisChannelHandler<?, ?> handler) || !handler.isClosed();
		}

		@Override
		public void close() {
			// Shared: stays open
		}

	}

	/**
	 * A connection of one operation.
	 */
	private record Dedicated(RedisConnection connection,
			RedisClusterAsyncCommands<byte[], byte[]> async) implements Commands {

		@Override
		public void close() {
			try {
				this.connection.close();
			}
			catch (RuntimeException ex) {
				// Released or not, the operation's outcome stands
			}
		}

	}

}
