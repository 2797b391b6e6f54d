package dev.lockstarter.autoconfigure.actuate;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.ExclusiveJobDescriptor;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the {@code exclusiveJobs} that {@link LocksEndpoint} lists.
 */
class ExclusiveJobsEndpointTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues("lock.store=memory", "management.endpoints.web.exposure.include=locks", "lock.ttl=20s",
				"lock.max-hold=5m")
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LocksEndpointAutoConfiguration.class,
				JacksonEndpointAutoConfiguration.class))
		.withUserConfiguration(Jobs.class);

	@Test
	void listsTheJobsWithTheirEffectiveSettings() {
		this.contextRunner.run((context) -> {
			assertThat(context.getBean(LocksEndpoint.class).locks().exclusiveJobs()).containsExactly(
					new ExclusiveJobDescriptor("Reports.send", Reports.class.getName() + ".send()", "PT10S", "PT5S",
							"PT20S", true, "PT5M", "mutex"),
					new ExclusiveJobDescriptor("nightly-export", Reports.class.getName() + ".export()", null, "PT1M",
							"PT30S", true, "PT2H", "mutex"));
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Jobs {

		@Bean
		Reports reports() {
			return new Reports();
		}

	}

	static class Reports {

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob
		public void send() {
		}

		@ExclusiveJob(name = "nightly-export", holdAtLeast = "1m", ttl = "30s", maxHold = "2h")
		public void export() {
		}

	}

}
