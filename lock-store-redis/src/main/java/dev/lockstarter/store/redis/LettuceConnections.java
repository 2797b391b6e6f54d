package dev.lockstarter.store.redis;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Lettuce connections of the store, obtained so that no caller waits for them beyond
 * its own deadline. Only touched when Lettuce is on the classpath.
 * <p>
 * With a factory that shares its native connection (the default), the shared connection
 * is obtained once and kept: Lettuce reconnects it by itself, so a lock operation never
 * opens a connection on the caller's thread. Obtaining it the first time, and again after
 * it was closed, may block for Lettuce's connect timeout plus its command timeout (the
 * handshake), and while it does the factory holds its own lock; so it runs on a daemon
 * thread of this class, once for every caller that needs it, and each caller waits for it
 * only until its own deadline. A dedicated connection (the {@code WAIT} of replica
 * acknowledgements, or a factory that does not share its connection) is likewise obtained
 * on such a thread; one obtained after its caller gave up is released at once.
 */
final class LettuceConnections {

	/** Threads that obtain connections; more calls queue, each until its deadline. */
	private static final int CONNECTING_THREADS = 4;

	private final LettuceConnectionFactory connectionFactory;

	private final ThreadPoolExecutor connecting;

	private final ReentrantLock lock = new ReentrantLock();

	private volatile @Nullable Shared shared;

	private @Nullable CompletableFuture<Shared> sharing;

	LettuceConnections(LettuceConnectionFactory connectionFactory) {
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
	 * Start opening the shared connection in the background, without waiting: a store
	 * created at startup then has it open before its first command, which would otherwise
	 * pay for it (in a JVM that has just started, about a second and a half on two cores)
	 * within its time-out. An attempt that fails is forgotten; the first command tries
	 * again.
	 */
	void openSharedSoon() {
		if (this.connectionFactory.getShareNativeConnection()) {
			sharedAsync();
		}
	}

	/**
	 * Return the commands for one operation: the shared connection's, or a dedicated
	 * connection's, obtained by the deadline.
	 * @param dedicated whether the operation needs a connection of its own
	 * @param deadline the {@link System#nanoTime()} by which to have the connection
	 * @return the commands, to close when the operation ends
	 */
	Commands commands(boolean dedicated, long deadline)
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
	 * The shared connection, obtained on a thread of this class, never the subscriber's
	 * (whose wait for the factory's lock is moved off its thread too); cancelling does
	 * not cancel obtaining it, the next caller may use it.
	 * @return the shared connection, or {@code null} when the factory does not share its
	 * connection
	 */
	@Nullable Mono<Commands> sharedReactive() {
		if (!this.connectionFactory.getShareNativeConnection()) {
			return null;
		}
		Shared known = this.shared;
		Mono<Shared> connection = (known != null && known.isUsable()) ? Mono.just(known)
				: Mono.fromFuture(this::sharedAsync, true).subscribeOn(Schedulers.boundedElastic());
		return connection.doOnNext((opened) -> this.shared = opened).cast(Commands.class);
	}

	/**
	 * Return the shared connection if it is open already, without waiting.
	 * @return its commands, or {@code null}
	 */
	@Nullable RedisClusterAsyncCommands<byte[], byte[]> sharedIfOpen() {
		Shared known = this.shared;
		if (known == null || !known.isUsable() || !this.connectionFactory.getShareNativeConnection()) {
			return null;
		}
		return known.async();
	}

	/**
	 * Stop the threads that obtain connections. The shared connection belongs to the
	 * factory and stays open.
	 */
	void destroy() {
		this.connecting.shutdownNow();
	}

	/**
	 * Return the connection of asynchronous commands, to reach its client resources.
	 * @param commands the commands
	 * @return the connection, or {@code null} for commands of another kind
	 */
	static @Nullable StatefulConnection<?, ?> statefulConnection(RedisClusterAsyncCommands<?, ?> commands) {
		if (commands instanceof RedisAsyncCommands<?, ?> standalone) {
			return standalone.getStatefulConnection();
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return cluster.getStatefulConnection();
		}
		return null;
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

	/**
	 * Asynchronous commands for one operation, released when it ends.
	 */
	interface Commands extends AutoCloseable {

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
