package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Warns at startup when the Redis server's {@code maxmemory-policy} is not
 * {@code noeviction}: under memory pressure such a server may evict lock keys, and a
 * second holder then gets a lock that is still held. Stays quiet (DEBUG) when the setting
 * cannot be read, for example for an ACL user without {@code +config} or a server that is
 * down. The check runs on a daemon thread and startup waits for it at most
 * {@code lock.redis.timeout}, so a paused or unreachable Redis does not hold startup up
 * for the client's own timeouts (a minute by default).
 */
class RedisEvictionPolicyCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(RedisEvictionPolicyCheck.class);

	static final String SETTING = "maxmemory-policy";

	private final RedisConnectionFactory connectionFactory;

	private final Duration timeout;

	RedisEvictionPolicyCheck(RedisConnectionFactory connectionFactory, Duration timeout) {
		this.connectionFactory = connectionFactory;
		this.timeout = timeout;
	}

	@Override
	public void afterSingletonsInstantiated() {
		String policy;
		try {
			policy = DaemonCall.call("lock-redis-eviction-check", () -> Optional.ofNullable(readPolicy()), this.timeout)
				.orElse(null);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return;
		}
		catch (ExecutionException | TimeoutException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not read the Redis " + SETTING + " setting (CONFIG GET may not be permitted, "
						+ "or Redis did not answer within " + this.timeout + "): "
						+ ((ex.getCause() != null) ? ex.getCause().getMessage() : ex.getMessage()));
			}
			return;
		}
		if (policy == null) {
			logger.debug("Redis did not report its " + SETTING + " setting");
		}
		else if (!"noeviction".equalsIgnoreCase(policy)) {
			logger.warn("Redis " + SETTING + " is '" + policy + "': under memory pressure Redis may evict lock keys, "
					+ "and a second caller then gets a lock that is still held. Set " + SETTING
					+ " to 'noeviction' on the Redis server that holds the locks.");
		}
	}

	private @Nullable String readPolicy() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Properties config = connection.serverCommands().getConfig(SETTING);
			return (config != null) ? config.getProperty(SETTING) : null;
		}
	}

}
