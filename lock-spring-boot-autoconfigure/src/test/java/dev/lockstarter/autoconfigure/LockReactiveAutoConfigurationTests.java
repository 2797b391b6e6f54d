package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.core.ReactiveLockTemplate;
import dev.lockstarter.web.LockExceptionHandler;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockReactiveAutoConfiguration} and the reactive part of
 * {@link LockWebAutoConfiguration}.
 */
class LockReactiveAutoConfigurationTests {

	private static final AutoConfigurations LOCKS = AutoConfigurations.of(LockAutoConfiguration.class,
			LockReactiveAutoConfiguration.class, LockWebAutoConfiguration.class);

	@Test
	void reactiveLockOperationsWorkOnTheLockTemplate() {
		new ApplicationContextRunner().withConfiguration(LOCKS)
			.withPropertyValues("lock.store=memory")
			.run((context) -> {
				assertThat(context).hasSingleBean(ReactiveLockOperations.class);
				assertThat(context.getBean(ReactiveLockTemplate.class).getTemplate())
					.isSameAs(context.getBean(LockTemplate.class));
			});
	}

	@Test
	void reactiveLockOperationsBackOffWithoutReactor() {
		new ApplicationContextRunner().withConfiguration(LOCKS)
			.withPropertyValues("lock.store=memory")
			.withClassLoader(new FilteredClassLoader(Mono.class))
			.run((context) -> {
				assertThat(context).hasSingleBean(LockTemplate.class);
				assertThat(context).doesNotHaveBean(ReactiveLockOperations.class);
			});
	}

	@Test
	void reactiveWebApplicationGetsTheLockExceptionHandler() {
		new ReactiveWebApplicationContextRunner().withConfiguration(LOCKS)
			.withPropertyValues("lock.store=memory", "lock.web.conflict-status=422")
			.run((context) -> assertThat(context).hasSingleBean(LockExceptionHandler.class));
	}

	@Test
	void servletWebApplicationStillGetsTheLockExceptionHandler() {
		new WebApplicationContextRunner().withConfiguration(LOCKS)
			.withPropertyValues("lock.store=memory")
			.run((context) -> assertThat(context).hasSingleBean(LockExceptionHandler.class));
	}

	@Test
	void reactiveWebApplicationWithoutWebFluxGetsNoHandler() {
		new ReactiveWebApplicationContextRunner().withConfiguration(LOCKS)
			.withPropertyValues("lock.store=memory")
			.withClassLoader(new FilteredClassLoader("org.springframework.web.reactive"))
			.run((context) -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
	}

	@Test
	void nonWebApplicationGetsNoHandler() {
		new ApplicationContextRunner().withConfiguration(LOCKS)
			.withPropertyValues("lock.store=memory")
			.run((context) -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
	}

}
