package dev.lockstarter.autoconfigure;

import java.util.Properties;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Warns at startup when the Redis server's {@code maxmemory-policy} is not
 * {@code noeviction}: under memory pressure such a server may evict lock keys, and a
 * second holder then gets a lock that is still held. Stays quiet (DEBUG) when the setting
 * cannot be read, for example for an ACL user without {@code +config} or a server that is
 * down.
 */
class RedisEvictionPolicyCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(RedisEvictionPolicyCheck.class);

	static final String SETTING = "maxmemory-policy";

	private final RedisConnectionFactory connectionFactory;

	RedisEvictionPolicyCheck(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Override
	public void afterSingletonsInstantiated() {
		String policy;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Properties config = connection.serverCommands().getConfig(SETTING);
			policy = (config != null) ? config.getProperty(SETTING) : null;
		}
		catch (RuntimeException ex) {
			if (logger.isDebugEnabled()) {
				logger.debug("Could not read the Redis " + SETTING + " setting (CONFIG GET may not be permitted): "
						+ ex.getMessage());
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

}
