package dev.lockstarter.autoconfigure.actuate;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LocksEndpointAutoConfiguration}.
 */
class LocksEndpointAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues("lock.store=memory")
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LocksEndpointAutoConfiguration.class));

	@Test
	void endpointIsNotCreatedByDefaultSinceItIsNotExposed() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void endpointIsCreatedWhenExposedOverHttp() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=health,locks")
			.run((context) -> assertThat(context).hasSingleBean(LocksEndpoint.class));
	}

	@Test
	void endpointIsCreatedWhenExposedOverJmx() {
		this.contextRunner
			.withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=locks")
			.run((context) -> assertThat(context).hasSingleBean(LocksEndpoint.class));
	}

	@Test
	void endpointIsNotCreatedWhenItsAccessIsNone() {
		this.contextRunner
			.withPropertyValues("management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void endpointIsNotCreatedWithoutActuator() {
		this.contextRunner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(LocksEndpoint.class);
			});
	}

	@Test
	void endpointIsNotCreatedWhenLockingIsDisabled() {
		this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=locks", "lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
	}

	@Test
	void userDefinedEndpointReplacesTheDefault() {
		this.contextRunner.withUserConfiguration(CustomEndpoint.class)
			.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.run((context) -> assertThat(context).getBean(LocksEndpoint.class)
				.isSameAs(context.getBean("customLocksEndpoint")));
	}

	@Configuration(proxyBeanMethods = false)
	static class CustomEndpoint {

		@Bean
		LocksEndpoint customLocksEndpoint() {
			return new LocksEndpoint(() -> new LocksEndpoint.StoreDescriptor("custom", "custom", Map.of()), List::of,
					List::of, List::of, false);
		}

	}

}
