package dev.lockstarter.integration;

import java.time.Duration;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.adapter.AdapterContractTests;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * {@link AdapterContractTests} on the {@link RedisLockStore}, against a real Redis
 * server: the Spring Integration, ShedLock and {@code Lock} adapters. It lives here
 * rather than in lock-store-redis, whose module lock-shedlock's tests use.
 */
class RedisAdapterContractTests extends AdapterContractTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LettuceConnectionFactory connectionFactory;

	private static RedisLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()),
				client);
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		sharedStore = new RedisLockStore(connectionFactory);
		// The first command opens the connection, which takes seconds on a busy machine
		sharedStore.setTimeout(Duration.ofSeconds(5));
	}

	@AfterAll
	static void destroySharedStore() {
		if (sharedStore != null) {
			sharedStore.destroy();
		}
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

	@Override
	protected RenewableLockRegistry<DistributedLock> createLockRegistry(LockOperations operations,
			LockOptions options) {
		return new LockOperationsLockRegistry(operations, options);
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
