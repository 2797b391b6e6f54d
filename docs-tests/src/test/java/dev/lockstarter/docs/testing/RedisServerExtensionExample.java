package dev.lockstarter.docs.testing;

import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A test class's set-up for a real Redis server, as an application's tests would write
 * it. It declares no test, so nothing starts when the build runs.
 */
class RedisServerExtensionExample {

	// tag::redis-server-extension[]
	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
	}
	// end::redis-server-extension[]

}
