package dev.lockstarter.store.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import dev.lockstarter.store.redis.LettuceConnections.Commands;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.Assert;

import static dev.lockstarter.store.redis.RedisLockScripts.ACQUIRE;
import static dev.lockstarter.store.redis.RedisLockScripts.ACQUIRE_FENCED;
import static dev.lockstarter.store.redis.RedisLockScripts.ACQUIRE_READING;
import static dev.lockstarter.store.redis.RedisLockScripts.EXTEND;
import static dev.lockstarter.store.redis.RedisLockScripts.FENCE;
import static dev.lockstarter.store.redis.RedisLockScripts.PUT_RESULT;
import static dev.lockstarter.store.redis.RedisLockScripts.RELEASE;
import static dev.lockstarter.store.redis.RedisLockScripts.RELEASE_KEEPING;

/**
 * The store's commands on a {@link LettuceConnectionFactory}, sent through Lettuce's
 * asynchronous API so that each call waits for its answer until a deadline of its own,
 * the store's timeout, whatever the factory's command timeout, and cancels the command
 * when it passes. How a blocking caller waits, spinning first or not, is
 * {@link ReplyWait}'s; which connection it uses is {@link LettuceConnections}'. Reactive
 * calls go out on the shared connection, their timeout counted by the connection's timer
 * ({@link AnsweredCommand}), and are signalled on a parallel thread, never on Lettuce's
 * I/O thread. Only touched when Lettuce is on the classpath.
 */
final class LettuceCommandExecutor implements RedisCommandExecutor {

	private static final Log logger = LogFactory.getLog(RedisLockStore.class);

	private final LettuceConnectionFactory connectionFactory;

	private final LettuceConnections connections;

	private volatile ReplyWait replyWait = new ReplyWait(ReplyWait.DEFAULT_SPIN);

	private volatile Duration timeout = RedisLockStore.DEFAULT_TIMEOUT;

	LettuceCommandExecutor(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.connections = new LettuceConnections(connectionFactory);
		LettuceScripts.prepare(ACQUIRE, ACQUIRE_FENCED, FENCE, RELEASE, EXTEND, PUT_RESULT, ACQUIRE_READING,
				RELEASE_KEEPING);
		this.connections.openSharedSoon();
	}

	@Override
	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

	@Override
	public void setReplySpin(Duration spin) {
		this.replyWait = new ReplyWait(spin);
	}

	@Override
	public Duration getReplySpin() {
		return this.replyWait.getSpin();
	}

	@Override
	public RedisTopology detectTopology(RedisOperation operation, Consumer<String> released) {
		return new RedisTopology(this.connectionFactory.isClusterAware(),
				ShardedReleaseSubscriber.of(this.connectionFactory, released));
	}

	@Override
	public boolean setIfAbsent(RedisOperation operation, byte[] key, byte[] value, long millis) {
		return Boolean.TRUE.equals(call(operation, 0, (deadline) -> {
			try (Commands commands = this.connections.commands(false, deadline)) {
				return "OK".equals(await(commands.async().set(key, value, SetArgs.Builder.nx().px(millis)), deadline));
			}
		}));
	}

	@Override
	public <T> @Nullable T eval(RedisOperation operation, ScriptCall<T> call) {
		return call(operation, 0, (deadline) -> {
			try (Commands commands = this.connections.commands(false, deadline)) {
				return eval(commands.async(), call, deadline);
			}
		});
	}

	@Override
	public <T> List<@Nullable T> evalEach(RedisOperation operation, List<ScriptCall<T>> calls) {
		@Nullable List<@Nullable T> replies = this.<List<@Nullable T>>call(operation, 0, (deadline) -> {
			try (Commands commands = this.connections.commands(false, deadline)) {
				return evalEach(commands.async(), calls, deadline);
			}
		});
		return (replies != null) ? replies : List.of();
	}

	/**
	 * Send every script at once, then wait for each reply until the deadline; a script
	 * that Redis does not know is sent again by {@code EVAL}.
	 */
	private <T> List<@Nullable T> evalEach(RedisClusterAsyncCommands<byte[], byte[]> commands,
			List<ScriptCall<T>> calls, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		List<RedisFuture<T>> sent = new ArrayList<>(calls.size());
		for (ScriptCall<T> call : calls) {
			sent.add(LettuceScripts.evalsha(commands, call));
		}
		List<@Nullable T> replies = new ArrayList<>(calls.size());
		for (int i = 0; i < calls.size(); i++) {
			try {
				replies.add(await(sent.get(i), deadline));
			}
			catch (ExecutionException ex) {
				if (!(ex.getCause() instanceof RedisNoScriptException)) {
					cancel(sent);
					throw ex;
				}
				replies.add(await(LettuceScripts.eval(commands, calls.get(i)), deadline));
			}
			catch (TimeoutException | InterruptedException ex) {
				cancel(sent);
				throw ex;
			}
		}
		return replies;
	}

	@Override
	public byte @Nullable [] get(RedisOperation operation, byte[] key) {
		return call(operation, 0, (deadline) -> {
			try (Commands commands = this.connections.commands(false, deadline)) {
				return await(commands.async().get(key), deadline);
			}
		});
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * On a cluster, each primary that serves slots in the client's view of the topology
	 * is scanned on its own node connection, one after the other.
	 */
	@Override
	public void scan(RedisOperation operation, byte[] pattern, int count, String routePrefix,
			Consumer<List<byte[]>> page) {
		ScanArgs args = ScanArgs.Builder.matches(pattern).limit(count);
		Commands commands = call(operation, 0, (deadline) -> this.connections.commands(false, deadline));
		Assert.state(commands != null, "Commands are obtained or the call fails");
		try (commands) {
			List<RedisClusterAsyncCommands<byte[], byte[]>> nodes = call(operation, 0,
					(deadline) -> primaries(commands.async(), deadline));
			for (RedisClusterAsyncCommands<byte[], byte[]> node : (nodes != null) ? nodes
					: List.<RedisClusterAsyncCommands<byte[], byte[]>>of()) {
				ScanCursor cursor = ScanCursor.INITIAL;
				while (!cursor.isFinished()) {
					ScanCursor from = cursor;
					KeyScanCursor<byte[]> scanned = call(operation, 0,
							(deadline) -> await(node.scan(from, args), deadline));
					if (scanned == null) {
						break;
					}
					page.accept(scanned.getKeys());
					cursor = scanned;
				}
			}
		}
	}

	/**
	 * The commands of each primary of a cluster that serves slots, or the given commands
	 * elsewhere.
	 */
	private static List<RedisClusterAsyncCommands<byte[], byte[]>> primaries(
			RedisClusterAsyncCommands<byte[], byte[]> commands, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		if (!(commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster)) {
			return List.of(commands);
		}
		StatefulRedisClusterConnection<byte[], byte[]> connection = cluster.getStatefulConnection();
		List<RedisClusterAsyncCommands<byte[], byte[]>> primaries = new ArrayList<>();
		for (RedisClusterNode node : connection.getPartitions()) {
			if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
				primaries.add(connection.getConnectionAsync(node.getNodeId())
					.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
					.async());
			}
		}
		return primaries;
	}

	@Override
	public ReplicaAcknowledgements.Acknowledged evalThenWait(RedisOperation operation, ScriptCall<Long> call,
			int replicas, Duration waitTimeout) {
		// WAIT may take the replica acknowledgement timeout on top of the timeout
		ReplicaAcknowledgements.Acknowledged acknowledged = call(operation, waitTimeout.toNanos(), (deadline) -> {
			try (Commands commands = this.connections.commands(true, deadline)) {
				Long reply = eval(commands.async(), call, deadline);
				if (reply == null || reply <= 0) {
					return new ReplicaAcknowledgements.Acknowledged(reply, -1L, null);
				}
				try {
					// Redis answers WAIT only when the replicas did or its timeout passed
					Long acks = ReplyWait.PARKING
						.await(commands.async().waitForReplication(replicas, waitTimeout.toMillis()), deadline);
					return new ReplicaAcknowledgements.Acknowledged(reply, (acks != null) ? acks : -1L, null);
				}
				catch (ExecutionException | TimeoutException ex) {
					return new ReplicaAcknowledgements.Acknowledged(reply, -1L, ex);
				}
			}
		});
		return (acknowledged != null) ? acknowledged : new ReplicaAcknowledgements.Acknowledged(null, -1L, null);
	}

	@Override
	public <T> Mono<T> evalReactive(RedisOperation operation, Supplier<ScriptCall<T>> call) {
		return Mono.defer(() -> evalReactive(operation, call.get()));
	}

	private <T> Mono<T> evalReactive(RedisOperation operation, ScriptCall<T> call) {
		return reactive(operation, (commands) -> AnsweredCommand.script(commands, call), () -> eval(operation, call));
	}

	@Override
	public Mono<byte[]> getReactive(RedisOperation operation, byte[] key) {
		return reactive(operation, (commands) -> AnsweredCommand.of(() -> commands.get(key)),
				() -> get(operation, key));
	}

	/**
	 * Send a command on the shared connection without blocking, or, when the factory does
	 * not share its connection, run the blocking call off the subscriber's thread.
	 * Cancelling the returned {@code Mono} cancels the command.
	 */
	private <T> Mono<T> reactive(RedisOperation operation,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, AnsweredCommand<T>> command,
			Callable<@Nullable T> blocking) {
		Duration timeout = this.timeout;
		// Replies arrive on a Lettuce I/O thread: what follows (the guarded work) runs on
		// a parallel thread instead, so it can never hold up the replies of other
		// commands, nor wait on that thread for a reply only that thread can read
		return Mono.defer(() -> {
			RedisClusterAsyncCommands<byte[], byte[]> open = this.connections.sharedIfOpen();
			if (open != null) {
				return answered(open, command, timeout, blocking);
			}
			Mono<Commands> connection = this.connections.sharedReactive();
			if (connection == null) {
				return RedisCommandExecutor.offloaded(blocking);
			}
			// The connection is being opened: the whole call within the timeout
			return connection.flatMap((shared) -> answered(shared.async(), command, timeout, blocking))
				.timeout(timeout);
		})
			.publishOn(Schedulers.parallel())
			.onErrorMap((ex) -> !(ex instanceof LockStoreException), (ex) -> failure(operation, timeout, ex));
	}

	/**
	 * Send a command on an open connection, its timeout counted by the connection's
	 * timer, as a blocking call's is by its waiting thread: Reactor's {@code timeout}
	 * would schedule a task on a parallel thread, and wake that thread, before every
	 * command is sent.
	 */
	private static <T> Mono<T> answered(RedisClusterAsyncCommands<byte[], byte[]> commands,
			Function<RedisClusterAsyncCommands<byte[], byte[]>, AnsweredCommand<T>> command, Duration timeout,
			Callable<@Nullable T> blocking) {
		StatefulConnection<?, ?> connection = LettuceConnections.statefulConnection(commands);
		if (connection == null) {
			return RedisCommandExecutor.offloaded(blocking);
		}
		return Mono.fromFuture(() -> command.apply(commands).send(connection.getResources().timer(), timeout));
	}

	@Override
	public <T> Optional<CompletableFuture<@Nullable T>> evalOnRelease(RedisOperation operation,
			@Nullable ChannelReleaseSubscriber subscriber, ScriptCall<T> call) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = (subscriber != null) ? subscriber.subscribedCommands()
				: null;
		if (commands == null) {
			commands = this.connections.sharedIfOpen();
		}
		StatefulConnection<?, ?> connection = (commands != null) ? LettuceConnections.statefulConnection(commands)
				: null;
		if (commands == null || connection == null) {
			return Optional.empty();
		}
		Duration timeout = this.timeout;
		return Optional.of(AnsweredCommand.script(commands, call)
			.send(connection.getResources().timer(), timeout)
			.handle((answer, ex) -> {
				if (ex != null) {
					throw failure(operation, timeout, ex);
				}
				return answer;
			}));
	}

	@Override
	public void destroy() {
		this.connections.destroy();
	}

	private <T> @Nullable T eval(RedisClusterAsyncCommands<byte[], byte[]> commands, ScriptCall<T> call, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		try {
			return await(LettuceScripts.evalsha(commands, call), deadline);
		}
		catch (ExecutionException ex) {
			if (!(ex.getCause() instanceof RedisNoScriptException)) {
				throw ex;
			}
			return await(LettuceScripts.eval(commands, call), deadline);
		}
	}

	private <T> T await(RedisFuture<T> future, long deadline)
			throws TimeoutException, InterruptedException, ExecutionException {
		return this.replyWait.await(future, deadline);
	}

	private static void cancel(List<? extends Future<?>> futures) {
		futures.forEach((future) -> future.cancel(false));
	}

	/**
	 * Run a blocking call within the timeout, plus {@code extraNanos}, and turn its
	 * failures into {@link LockStoreException}s.
	 */
	private <T> @Nullable T call(RedisOperation operation, long extraNanos, BoundedCall<T> call) {
		long started = System.nanoTime();
		long deadline = started + this.timeout.toNanos() + extraNanos;
		try {
			return call.call(deadline);
		}
		catch (TimeoutException ex) {
			if (logger.isDebugEnabled()) {
				long waited = Duration.ofNanos(System.nanoTime() - started).toMillis();
				logger.debug("Redis did not answer within " + waited + " ms to " + operation.operation() + " lock '"
						+ LogSafe.key(operation.key()) + "'; the command was cancelled");
			}
			throw operation.timedOut(Duration.ofNanos(deadline - started).toMillis(), ex);
		}
		catch (ExecutionException ex) {
			throw operation.failed(translate((ex.getCause() != null) ? ex.getCause() : ex));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw operation.interrupted(ex);
		}
		catch (RuntimeException ex) {
			throw operation.failed(translate(ex));
		}
	}

	/**
	 * The {@link LockStoreException} of a command sent without blocking that failed, or
	 * whose answer did not come within {@code timeout}.
	 */
	private LockStoreException failure(RedisOperation operation, Duration timeout, Throwable ex) {
		return (ex instanceof TimeoutException) ? operation.timedOut(timeout.toMillis(), ex)
				: operation.failed(translate(ex));
	}

	private Throwable translate(Throwable failure) {
		if (failure instanceof RuntimeException runtime && !(failure instanceof DataAccessException)) {
			DataAccessException translated = this.connectionFactory.translateExceptionIfPossible(runtime);
			if (translated != null) {
				return translated;
			}
		}
		return failure;
	}

	/**
	 * A blocking call, given its deadline.
	 */
	@FunctionalInterface
	private interface BoundedCall<T> {

		@Nullable T call(long deadline) throws TimeoutException, InterruptedException, ExecutionException;

	}

}
