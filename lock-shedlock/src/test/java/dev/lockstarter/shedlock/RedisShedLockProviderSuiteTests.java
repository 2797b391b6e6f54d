package dev.lockstarter.shedlock;

import java.time.Duration;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.test.adapter.ShedLockProviderSuiteTests;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * ShedLock's own provider suite ({@link ShedLockProviderSuiteTests}) on the
 * {@link LockOperationsLockProvider} over one {@link RedisLockStore} for the class, on a
 * real Redis server.
 */
class RedisShedLockProviderSuiteTests extends ShedLockProviderSuiteTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static @Nullable LettuceConnectionFactory connectionFactory;

	private static @Nullable RedisLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()), client);
		factory.afterPropertiesSet();
		factory.start();
		connectionFactory = factory;
		RedisLockStore store = new RedisLockStore(factory);
		// The first command opens the connection, which takes seconds on a busy machine
		store.setTimeout(Duration.ofSeconds(5));
		sharedStore = store;
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
		RedisLockStore store = sharedStore;
		if (store == null) {
			throw new IllegalStateException("No store outside of the class's tests");
		}
		return store;
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
