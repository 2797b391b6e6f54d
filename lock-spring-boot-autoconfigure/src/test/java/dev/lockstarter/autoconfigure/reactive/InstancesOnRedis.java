package dev.lockstarter.autoconfigure.reactive;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the end-to-end WebFlux tests share: one real Redis, emptied before each test;
 * application instances started on free ports and closed after each test; BlockHound,
 * installed before any Reactor thread exists, with no blocking call on a non-blocking
 * thread allowed in any test.
 */
abstract class InstancesOnRedis {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@BeforeAll
	static void installBlockHound() {
		BlockingCalls.install();
	}

	@BeforeEach
	void emptyRedisAndForgetBlockingCalls() {
		redis.server().command("FLUSHALL");
		BlockingCalls.clear();
	}

	@AfterEach
	void closeInstancesAndCheckForBlockingCalls() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
		assertThat(BlockingCalls.detected()).as("blocking calls on non-blocking threads").isEmpty();
	}

	/**
	 * Start a {@link ReactiveRegistrationApp} instance, closed after the test.
	 * @param properties more properties, {@code name=value}
	 * @return its port
	 */
	int start(String... properties) {
		return start(this.contexts, ReactiveRegistrationApp.class, WebApplicationType.REACTIVE, properties);
	}

	/**
	 * Start an application on the Redis, with short Redis timeouts.
	 * @param contexts where to keep its context, for closing
	 * @param application the application class
	 * @param type its web stack
	 * @param properties more properties, {@code name=value}
	 * @return its port
	 */
	static int start(List<ConfigurableApplicationContext> contexts, Class<?> application, WebApplicationType type,
			String... properties) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(application).web(type)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.timeout=1s", "spring.data.redis.connect-timeout=1s")
			.properties(properties)
			.run();
		contexts.add(context);
		return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

}
