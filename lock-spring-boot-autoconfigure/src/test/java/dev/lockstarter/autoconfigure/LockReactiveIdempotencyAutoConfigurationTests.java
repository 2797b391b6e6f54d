package dev.lockstarter.autoconfigure;

import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.idempotency.IdempotentRequest;
import dev.lockstarter.idempotency.IdempotentRequestBufferingFilter;
import dev.lockstarter.idempotency.IdempotentRequestInterceptor;
import dev.lockstarter.idempotency.IdempotentRequestWebFilter;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.method.HandlerMethod;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockReactiveIdempotencyAutoConfiguration}.
 */
class LockReactiveIdempotencyAutoConfigurationTests {

	private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(WebFluxAutoConfiguration.class, LockAutoConfiguration.class,
				LockReactiveAutoConfiguration.class, LockWebAutoConfiguration.class,
				LockIdempotencyAutoConfiguration.class, LockReactiveIdempotencyAutoConfiguration.class))
		.withPropertyValues("lock.store=memory");

	@Test
	void reactiveHandlersOfEveryReturnTypeAreAccepted() {
		this.runner.withUserConfiguration(ReactiveHandlersConfiguration.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(IdempotentRequestInterceptor.class);
			assertThat(context).doesNotHaveBean(IdempotentRequestBufferingFilter.class);
			assertThat(context.getBean(IdempotentRequestWebFilter.class).getIdempotentHandlerMethods())
				.extracting(HandlerMethod::getMethod)
				.extracting(java.lang.reflect.Method::getName)
				.containsExactlyInAnyOrder("mono", "flux", "future", "plain");
		});
	}

	@Test
	void applicationWithoutAnnotatedHandlersFindsNone() {
		this.runner.run(
				(context) -> assertThat(context.getBean(IdempotentRequestWebFilter.class).getIdempotentHandlerMethods())
					.isEmpty());
	}

	@Test
	void transactionalModeFailsAtStartupNamingTheProperty() {
		this.runner.withUserConfiguration(ReactiveHandlersConfiguration.class)
			.withPropertyValues("lock.idempotency.transactional=true")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasMessageContaining("lock.idempotency.transactional")
					.hasMessageContaining("servlet");
			});
	}

	@Test
	void invalidRetentionFailsAtStartupNamingTheMethod() {
		this.runner.withUserConfiguration(InvalidHandlerConfiguration.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasMessageContaining("invalid retention 'soon'")
				.hasMessageContaining("InvalidHandler.invalid()");
		});
	}

	@Test
	void nonPositiveMaxResponseSizeFailsAtStartupNamingThePropertyInReactiveAndServletApplications() {
		for (String size : new String[] { "0", "-1KB" }) {
			this.runner.withPropertyValues("lock.idempotency.max-response-size=" + size)
				.run((context) -> assertMaxResponseSizeFailure(context.getStartupFailure()));
			new WebApplicationContextRunner()
				.withConfiguration(
						AutoConfigurations.of(LockAutoConfiguration.class, LockIdempotencyAutoConfiguration.class))
				.withPropertyValues("lock.store=memory", "lock.idempotency.max-response-size=" + size)
				.run((context) -> assertMaxResponseSizeFailure(context.getStartupFailure()));
		}
	}

	@Test
	void maxResponseSizeReachesTheFilter() {
		this.runner.withPropertyValues("lock.idempotency.max-response-size=2KB")
			.run((context) -> assertThat(context.getBean(IdempotentRequestWebFilter.class).getMaxResponseSize())
				.isEqualTo(2048));
		new WebApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LockAutoConfiguration.class, LockIdempotencyAutoConfiguration.class))
			.withPropertyValues("lock.store=memory", "lock.idempotency.max-response-size=3KB")
			.run((context) -> assertThat(context.getBean(IdempotentRequestInterceptor.class).getMaxResponseSize())
				.isEqualTo(3072));
	}

	@Test
	void applicationsWithoutTheWebModuleStartWithoutIdempotentRequests() {
		new WebApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(LockAutoConfiguration.class, LockIdempotencyAutoConfiguration.class))
			.withClassLoader(new FilteredClassLoader("dev.lockstarter.idempotency", "dev.lockstarter.web"))
			.withPropertyValues("lock.store=memory")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(LockIdempotencyAutoConfiguration.class);
			});
		this.runner.withClassLoader(new FilteredClassLoader("dev.lockstarter.idempotency", "dev.lockstarter.web"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(LockReactiveIdempotencyAutoConfiguration.class);
			});
	}

	private static void assertMaxResponseSizeFailure(Throwable failure) {
		assertThat(failure).isNotNull();
		Throwable cause = failure;
		while (!(cause instanceof InvalidConfigurationPropertyValueException) && cause.getCause() != null) {
			cause = cause.getCause();
		}
		assertThat(cause).isInstanceOfSatisfying(InvalidConfigurationPropertyValueException.class,
				(invalid) -> assertThat(invalid.getName()).isEqualTo("lock.idempotency.max-response-size"));
	}

	@Test
	void disabledIdempotencyGetsNoFilter() {
		this.runner.withPropertyValues("lock.idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotentRequestWebFilter.class));
	}

	@Test
	void servletApplicationGetsNoReactiveFilter() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LockReactiveAutoConfiguration.class,
					LockReactiveIdempotencyAutoConfiguration.class))
			.withPropertyValues("lock.store=memory")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotentRequestWebFilter.class));
	}

	@Configuration(proxyBeanMethods = false)
	@Import(ReactiveHandlers.class)
	static class ReactiveHandlersConfiguration {

	}

	@RestController
	static class ReactiveHandlers {

		@PostMapping("/mono")
		@IdempotentRequest
		Mono<String> mono() {
			return Mono.just("mono");
		}

		@PostMapping("/flux")
		@IdempotentRequest(retention = "1h")
		Flux<String> flux() {
			return Flux.just("flux");
		}

		@PostMapping("/future")
		@IdempotentRequest
		CompletableFuture<String> future() {
			return CompletableFuture.completedFuture("future");
		}

		@PostMapping("/plain")
		@IdempotentRequest(required = false)
		String plain() {
			return "plain";
		}

		@PostMapping("/other")
		String other() {
			return "other";
		}

	}

	@Configuration(proxyBeanMethods = false)
	@Import(InvalidHandler.class)
	static class InvalidHandlerConfiguration {

	}

	@RestController
	static class InvalidHandler {

		@PostMapping("/invalid")
		@IdempotentRequest(retention = "soon")
		Mono<String> invalid() {
			return Mono.just("invalid");
		}

	}

}
