package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.interceptor.ExclusiveJobAdvisor;
import dev.lockstarter.interceptor.ExclusiveJobAttributeSource;
import dev.lockstarter.interceptor.ExclusiveJobMethodValidator;
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor;
import dev.lockstarter.interceptor.InvalidExclusiveJobException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the {@code @ExclusiveJob} beans of {@link LockAutoConfiguration}.
 */
class ExclusiveJobAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues("lock.store=memory")
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class));

	@Test
	void createsTheJobAdvisorWithTheOrderOfTheRequestAdvisor() {
		this.contextRunner.run((context) -> {
			assertThat(context).hasSingleBean(ExclusiveJobAttributeSource.class);
			assertThat(context).hasSingleBean(ExclusiveJobMethodValidator.class);
			assertThat(context).hasSingleBean(ExclusiveJobAdvisor.class);
			assertThat(context.getBean(ExclusiveJobAdvisor.class).getOrder())
				.isEqualTo(ExclusiveRequestAdvisor.DEFAULT_ORDER);
		});
	}

	@Test
	void lockOrderAppliesToTheJobAdvisor() {
		this.contextRunner.withPropertyValues("lock.order=42")
			.run((context) -> assertThat(context.getBean(ExclusiveJobAdvisor.class).getOrder()).isEqualTo(42));
	}

	@Test
	void disabledCreatesNoJobAdvisor() {
		this.contextRunner.withPropertyValues("lock.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ExclusiveJobAdvisor.class));
	}

	@Test
	void jobBeansAreProxiedAndDeclarationsValidatedAtStartup() {
		this.contextRunner.withUserConfiguration(ValidJobs.class).run((context) -> {
			assertThat(context.getBean(Report.class).getClass().getName()).contains("SpringCGLIB");
			assertThat(context.getBean(ExclusiveJobMethodValidator.class).getDeclarations()).singleElement()
				.satisfies((declaration) -> assertThat(declaration.attribute().name()).isEqualTo("Report.send"));
		});
	}

	@Test
	void invalidJobFailsStartup() {
		this.contextRunner.withUserConfiguration(InvalidJobs.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidExclusiveJobException.class)
				.hasMessageContaining("holdAtLeast must be zero or positive, was '-5s'"));
	}

	@Configuration(proxyBeanMethods = false)
	static class ValidJobs {

		@Bean
		Report report() {
			return new Report();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class InvalidJobs {

		@Bean
		NegativeHold negativeHold() {
			return new NegativeHold();
		}

	}

	static class Report {

		@Scheduled(fixedRate = 60_000)
		@ExclusiveJob
		public void send() {
		}

	}

	static class NegativeHold {

		@Scheduled(fixedRate = 60_000)
		@ExclusiveJob(holdAtLeast = "-5s")
		public void send() {
		}

	}

}
