package dev.lockstarter.autoconfigure.metrics;

import java.time.Duration;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.observation.DefaultExclusiveRequestObservationConvention;
import dev.lockstarter.observation.ExclusiveRequestObservationContext;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The {@code lock.request} and {@code lock.acquire} observations of an
 * {@link ExclusiveRequest} method on a real Redis, recorded by a
 * {@link TestObservationRegistry}: the acquisition and the method's own observation nest
 * inside the request's, and no key value is among the key values.
 */
class LockObservationIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static ConfigurableApplicationContext context;

	private static TestObservationRegistry registry;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "lock.ttl=10s")
			.run();
		registry = context.getBean(TestObservationRegistry.class);
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@BeforeEach
	void clear() {
		registry.clear();
	}

	@Test
	void theMethodsObservationNestsInTheLockRequestObservation() {
		assertThat(context.getBean(Users.class).register("alice")).isEqualTo("registered alice");
		assertThat(registry).hasObservationWithNameEqualTo("lock.request")
			.that()
			.hasContextualNameEqualTo("lock Users.register")
			.hasLowCardinalityKeyValue("name", "Users.register")
			.hasLowCardinalityKeyValue("store", "redis")
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.doesNotHaveError()
			.hasBeenStarted()
			.hasBeenStopped();
		assertThat(registry).hasObservationWithNameEqualTo("lock.acquire")
			.that()
			.hasLowCardinalityKeyValue("outcome", "acquired")
			.hasParentObservationContextMatching((parent) -> "lock.request".equals(parent.getName()));
		assertThat(registry).hasObservationWithNameEqualTo("users.work")
			.that()
			.hasParentObservationContextMatching((parent) -> "lock.request".equals(parent.getName()));
		for (String name : new String[] { "lock.request", "lock.acquire" }) {
			assertThat(registry).forAllObservationsWithNameEqualTo(name,
					(observation) -> observation
						.satisfies((context) -> assertThat(((Observation.Context) context).getAllKeyValues())
							.noneMatch((keyValue) -> keyValue.getValue().contains("alice"))));
		}
	}

	@Test
	void aConflictIsAnObservationWithItsOutcome() {
		LockOperations locks = context.getBean(LockOperations.class);
		try (Lease holder = locks.acquire("Users.register:bob", Duration.ofSeconds(10))) {
			assertThat(holder.isHeld()).isTrue();
			registry.clear();
			assertThatExceptionOfType(LockConflictException.class)
				.isThrownBy(() -> context.getBean(Users.class).register("bob"));
		}
		assertThat(registry).hasObservationWithNameEqualTo("lock.request")
			.that()
			.hasLowCardinalityKeyValue("outcome", "conflict")
			.hasError();
		assertThat(registry).hasObservationWithNameEqualTo("lock.acquire")
			.that()
			.hasLowCardinalityKeyValue("outcome", "conflict");
		assertThat(registry).hasNumberOfObservationsWithNameEqualTo("users.work", 0);
	}

	@Test
	void aConventionBeanReplacesTheDefault() {
		try (ConfigurableApplicationContext custom = new SpringApplicationBuilder(App.class, CustomConvention.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "lock.ttl=10s")
			.run()) {
			TestObservationRegistry observations = custom.getBean(TestObservationRegistry.class);
			custom.getBean(Users.class).register("carol");
			assertThat(observations).hasObservationWithNameEqualTo("lock.request")
				.that()
				.hasLowCardinalityKeyValue("team", "accounts");
		}
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Users.class)
	static class App {

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomConvention {

		@Bean
		DefaultExclusiveRequestObservationConvention teamConvention() {
			return new DefaultExclusiveRequestObservationConvention() {

				@Override
				public KeyValues getLowCardinalityKeyValues(ExclusiveRequestObservationContext context) {
					return super.getLowCardinalityKeyValues(context).and("team", "accounts");
				}

			};
		}

	}

	static class Users {

		private final ObservationRegistry registry;

		Users(ObservationRegistry registry) {
			this.registry = registry;
		}

		@ExclusiveRequest(key = "#user")
		String register(String user) {
			return Observation.createNotStarted("users.work", this.registry).observe(() -> "registered " + user);
		}

	}

}
