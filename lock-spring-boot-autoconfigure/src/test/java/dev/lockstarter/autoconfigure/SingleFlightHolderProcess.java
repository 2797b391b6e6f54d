package dev.lockstarter.autoconfigure;

import java.time.Duration;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate JVM that takes the lock of one single-flight call, the way the interceptor
 * does for the call's holder (same key prefix and key, renewal on), prints
 * {@value #HOLDING}, and holds it until it is killed. Arguments: Redis host, port, key
 * prefix, key, time-to-live in milliseconds.
 */
public final class SingleFlightHolderProcess {

	static final String HOLDING = "HOLDING";

	private SingleFlightHolderProcess() {
	}

	public static void main(String[] args) throws InterruptedException {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(args[0], Integer.parseInt(args[1])));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		RedisLockStore store = new RedisLockStore(connectionFactory, args[2] + "released");
		LockTemplate locks = new LockTemplate(store, args[2]);
		locks.acquire(args[3], LockOptions.ttl(Duration.ofMillis(Long.parseLong(args[4]))));
		System.out.println(HOLDING);
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
