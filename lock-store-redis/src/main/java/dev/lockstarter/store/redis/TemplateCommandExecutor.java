package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStringCommands.SetOption;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.types.Expiration;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * The store's commands through a {@link RedisTemplate}, for Jedis and any connection
 * factory other than Lettuce's. The factory's own timeouts (its socket timeout and pool
 * wait) bound each call; {@code RedisTemplate}'s script executor sends {@code EVAL} when
 * Redis answers {@code NOSCRIPT}. Reactive calls run the blocking call on
 * {@link reactor.core.scheduler.Schedulers#boundedElastic()}, and nothing is sent from
 * the thread that reads a release announcement.
 */
final class TemplateCommandExecutor implements RedisCommandExecutor {

	private final RedisTemplate<byte[], byte[]> template;

	TemplateCommandExecutor(RedisConnectionFactory connectionFactory) {
		RedisTemplate<byte[], byte[]> template = new RedisTemplate<>();
		template.setConnectionFactory(connectionFactory);
		template.setKeySerializer(RedisSerializer.byteArray());
		template.setValueSerializer(RedisSerializer.byteArray());
		template.setEnableDefaultSerializer(false);
		template.afterPropertiesSet();
		this.template = template;
	}

	@Override
	public void setTimeout(Duration timeout) {
		// The factory's own timeouts apply
	}

	@Override
	public void setReplySpin(Duration spin) {
		// The client waits for its answers by itself
	}

	@Override
	public Duration getReplySpin() {
		return Duration.ZERO;
	}

	@Override
	public RedisTopology detectTopology(RedisOperation operation, Consumer<String> released) {
		Boolean cluster = call(operation, () -> this.template
			.execute((RedisCallback<Boolean>) (connection) -> connection instanceof RedisClusterConnection, true));
		return new RedisTopology(Boolean.TRUE.equals(cluster), null);
	}

	@Override
	public boolean setIfAbsent(RedisOperation operation, byte[] key, byte[] value, long millis) {
		return Boolean.TRUE.equals(call(operation,
				() -> this.template.execute((RedisCallback<Boolean>) (connection) -> connection.stringCommands()
					.set(key, value, Expiration.milliseconds(millis), SetOption.ifAbsent()))));
	}

	@Override
	public <T> @Nullable T eval(RedisOperation operation, ScriptCall<T> call) {
		return call(operation, () -> run(call));
	}

	@Override
	public <T> List<@Nullable T> evalEach(RedisOperation operation, List<ScriptCall<T>> calls) {
		List<@Nullable T> replies = new ArrayList<>(calls.size());
		call(operation, () -> {
			calls.forEach((call) -> replies.add(run(call)));
			return replies;
		});
		return replies;
	}

	private <T> @Nullable T run(ScriptCall<T> call) {
		return this.template.execute(call.script(), Arrays.asList(call.keys()), (Object[]) call.args());
	}

	@Override
	public byte @Nullable [] get(RedisOperation operation, byte[] key) {
		return call(operation, () -> this.template.opsForValue().get(key));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Each page is {@link RedisLockScripts#SCAN_PAGE}, a script that a key of the node's
	 * slots routes to the node: unlike the client's own cursor on a cluster node, it
	 * holds no connection between pages.
	 */
	@Override
	public void scan(RedisOperation operation, byte[] pattern, int count, String routePrefix,
			Consumer<List<byte[]>> page) {
		List<String> routes = call(operation, () -> this.template
			.execute((RedisCallback<List<String>>) (connection) -> routes(connection, routePrefix)));
		for (String route : (routes != null) ? routes : List.<String>of()) {
			byte[] cursor = ScriptCall.bytes("0");
			do {
				@SuppressWarnings("rawtypes")
				List answer = eval(operation, ScriptCall.of(RedisLockScripts.SCAN_PAGE, List.of(route), cursor, pattern,
						Integer.toString(count)));
				if (answer == null || answer.size() < 2 || !(answer.get(0) instanceof byte[] next)
						|| !(answer.get(1) instanceof List<?> keys)) {
					throw operation.failed(new IllegalStateException("SCAN answered " + answer));
				}
				page.accept(keys.stream().filter(byte[].class::isInstance).map(byte[].class::cast).toList());
				cursor = next;
			}
			while (!"0".equals(new String(cursor, StandardCharsets.UTF_8)));
		}
	}

	/**
	 * One key per node to scan, starting with {@code routePrefix}: a key of a slot of
	 * each primary that serves slots on a cluster, any key elsewhere.
	 */
	private static List<String> routes(RedisConnection connection, String routePrefix) {
		if (!(connection instanceof RedisClusterConnection cluster)) {
			return List.of(routePrefix + "{0}");
		}
		List<String> routes = new ArrayList<>();
		for (RedisClusterNode node : cluster.clusterGetNodes()) {
			if (node.isMaster() && node.getSlotRange().getSlotsArray().length > 0) {
				for (int n = 0; n < Integer.MAX_VALUE; n++) {
					String route = routePrefix + "{" + n + "}";
					if (node.servesSlot(ClusterSlotHashUtil.calculateSlot(route))) {
						routes.add(route);
						break;
					}
				}
			}
		}
		return routes;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A pipeline runs on a dedicated connection, so {@code WAIT} never blocks the shared
	 * one.
	 */
	@Override
	public ReplicaAcknowledgements.Acknowledged evalThenWait(RedisOperation operation, ScriptCall<Long> call,
			int replicas, Duration waitTimeout) {
		ReplicaAcknowledgements.Acknowledged acknowledged = call(operation,
				() -> this.template.execute(
						(RedisCallback<ReplicaAcknowledgements.Acknowledged>) (connection) -> evalThenWait(connection,
								call, replicas, waitTimeout),
						true));
		return (acknowledged != null) ? acknowledged : new ReplicaAcknowledgements.Acknowledged(null, -1L, null);
	}

	private static ReplicaAcknowledgements.Acknowledged evalThenWait(RedisConnection connection, ScriptCall<Long> call,
			int replicas, Duration waitTimeout) {
		connection.openPipeline();
		connection.scriptingCommands()
			.eval(ScriptCall.bytes(call.script().getScriptAsString()), ReturnType.INTEGER, call.keys().length,
					call.keysAndArgs());
		Long acquired = (Long) connection.closePipeline().get(0);
		if (acquired == null || acquired <= 0) {
			return new ReplicaAcknowledgements.Acknowledged(acquired, 0, null);
		}
		try {
			connection.openPipeline();
			connection.execute("WAIT", ScriptCall.bytes(Integer.toString(replicas)),
					ScriptCall.bytes(Long.toString(waitTimeout.toMillis())));
			Object waited = connection.closePipeline().get(0);
			return new ReplicaAcknowledgements.Acknowledged(acquired,
					(waited instanceof Number number) ? number.longValue() : -1L, null);
		}
		catch (RuntimeException ex) {
			return new ReplicaAcknowledgements.Acknowledged(acquired, -1L, ex);
		}
	}

	@Override
	public <T> Mono<T> evalReactive(RedisOperation operation, Supplier<ScriptCall<T>> call) {
		return RedisCommandExecutor.offloaded(() -> eval(operation, call.get()));
	}

	@Override
	public Mono<byte[]> getReactive(RedisOperation operation, byte[] key) {
		return RedisCommandExecutor.offloaded(() -> get(operation, key));
	}

	@Override
	public <T> Optional<CompletableFuture<@Nullable T>> evalOnRelease(RedisOperation operation,
			@Nullable ChannelReleaseSubscriber subscriber, ScriptCall<T> call) {
		// A template call blocks its thread: the waiter sends its attempt itself
		return Optional.empty();
	}

	@Override
	public void destroy() {
		// Nothing runs in the background
	}

	private static <T> @Nullable T call(RedisOperation operation, Supplier<@Nullable T> call) {
		try {
			return call.get();
		}
		catch (DataAccessException ex) {
			throw operation.failed(ex);
		}
	}

}
