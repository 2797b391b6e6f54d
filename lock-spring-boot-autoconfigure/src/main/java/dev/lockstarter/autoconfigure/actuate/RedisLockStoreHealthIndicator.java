package dev.lockstarter.autoconfigure.actuate;

import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.autoconfigure.DaemonCall;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;

/**
 * Lock-specific health of the Redis lock store. Whether Redis answers is Spring Boot's
 * own {@code redis} health indicator's job, so this one does not ping: it reports the
 * server's {@code maxmemory-policy} ({@code evictionPolicy}), read with
 * {@code CONFIG GET} at most once a minute.
 * <p>
 * A policy other than {@code noeviction} lets Redis evict lock keys under memory
 * pressure, after which a second caller gets a lock that is still held. That is reported
 * as UP with a {@code warning} detail, not as DOWN: locking works, the risk is a matter
 * of configuration that restarting or rerouting traffic cannot fix, and a DOWN would take
 * every instance out of service at once. When the setting cannot be read (an ACL user
 * without {@code +config}, a managed Redis that renames {@code CONFIG}, or Redis down),
 * the status is UNKNOWN with the reason, which does not lower the application's
 * aggregated status.
 */
class RedisLockStoreHealthIndicator extends AbstractHealthIndicator {

	/** How long a policy read is used before it is read again. */
	static final Duration DEFAULT_CACHE_TIME_TO_LIVE = Duration.ofMinutes(1);

	static final String SETTING = "maxmemory-policy";

	private static final String NO_EVICTION = "noeviction";

	private final RedisLockStore store;

	private final RedisConnectionFactory connectionFactory;

	private final long cacheTimeToLiveNanos;

	private volatile @Nullable EvictionPolicy evictionPolicy;

	RedisLockStoreHealthIndicator(RedisLockStore store, RedisConnectionFactory connectionFactory) {
		this(store, connectionFactory, DEFAULT_CACHE_TIME_TO_LIVE);
	}

	RedisLockStoreHealthIndicator(RedisLockStore store, RedisConnectionFactory connectionFactory,
			Duration cacheTimeToLive) {
		super("Redis lock store health check failed");
		Assert.notNull(store, "'store' must not be null");
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		this.store = store;
		this.connectionFactory = connectionFactory;
		this.cacheTimeToLiveNanos = cacheTimeToLive.toNanos();
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("store", "redis");
		// A hint only: waiters poll while it is not connected, so it never makes the
		// store DOWN.
		builder.withDetail("releaseNotifications", this.store.getSubscriptionState().name().toLowerCase(Locale.ROOT));
		EvictionPolicy policy = evictionPolicy();
		String failure = policy.failure();
		if (failure != null) {
			builder.unknown().withDetail("evictionPolicy", "unknown").withDetail("error", failure);
			return;
		}
		builder.up().withDetail("evictionPolicy", String.join(", ", policy.values()));
		if (!policy.values().equals(Set.of(NO_EVICTION))) {
			builder.withDetail("warning", SETTING + " is not '" + NO_EVICTION
					+ "': under memory pressure Redis may evict lock keys, and a second caller then gets a lock "
					+ "that is still held. Set " + SETTING + " to '" + NO_EVICTION + "' on the Redis server that "
					+ "holds the locks.");
		}
	}

	private EvictionPolicy evictionPolicy() {
		EvictionPolicy cached = this.evictionPolicy;
		long now = System.nanoTime();
		if (cached != null && now - cached.readAt() < this.cacheTimeToLiveNanos) {
			return cached;
		}
		EvictionPolicy read = read(now);
		this.evictionPolicy = read;
		return read;
	}

	/**
	 * Read the policy of the server, or of every primary of a cluster, whose reply names
	 * each setting {@code host:port.maxmemory-policy}.
	 */
	private EvictionPolicy read(long now) {
		Properties config;
		try {
			config = DaemonCall.call("lock-redis-health", this::readConfig, this.store.getTimeout());
		}
		catch (TimeoutException ex) {
			return new EvictionPolicy(Set.of(), "Redis did not answer CONFIG GET within " + this.store.getTimeout(),
					now);
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			return new EvictionPolicy(Set.of(), cause.getClass().getName() + ": " + cause.getMessage(), now);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return new EvictionPolicy(Set.of(), "interrupted", now);
		}
		Set<String> values = new TreeSet<>();
		if (config != null) {
			config.stringPropertyNames()
				.stream()
				.filter((name) -> name.equals(SETTING) || name.endsWith("." + SETTING))
				.map((name) -> config.getProperty(name).toLowerCase(Locale.ROOT))
				.forEach(values::add);
		}
		if (values.isEmpty()) {
			return new EvictionPolicy(values, "Redis did not report its " + SETTING + " setting", now);
		}
		return new EvictionPolicy(values, null, now);
	}

	private @Nullable Properties readConfig() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return connection.serverCommands().getConfig(SETTING);
		}
	}

	/**
	 * The policies read, or why none could be, and when (by {@link System#nanoTime()}).
	 */
	private record EvictionPolicy(Set<String> values, @Nullable String failure, long readAt) {

	}

}
