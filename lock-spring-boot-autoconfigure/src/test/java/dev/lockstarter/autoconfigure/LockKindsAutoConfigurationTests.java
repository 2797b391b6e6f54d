package dev.lockstarter.autoconfigure;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.LockMode;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOperations;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Startup checks of methods that declare permits or a read/write lock.
 */
class LockKindsAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class))
		.withPropertyValues("lock.store=memory");

	@Test
	void aStoreThatKeepsPermitsRunsTheMethods() {
		this.contextRunner.withUserConfiguration(Reports.Config.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(LockOperations.class).supports(LockKind.READ)).isTrue();
			assertThat(context.getBean(Reports.class).export("tenant-1")).isEqualTo("exported tenant-1");
			assertThat(context.getBean(Reports.class).read("doc")).isEqualTo("read doc");
		});
	}

	@Test
	void aStoreThatKeepsOnlyMutexesFailsStartupNamingTheStoreAndEveryMethod() {
		this.contextRunner
			.withUserConfiguration(Reports.Config.class, ResultSharingAutoConfigurationTests.ResultlessStore.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("keeps only one holder per key")
				.hasMessageContaining("Reports.export(String) (permits(2))")
				.hasMessageContaining("Reports.read(String) (read)")
				.hasMessageContaining("Reports.nightly() (permits(3))")
				.hasMessageNotContaining("Reports.plain"));
	}

	static class Reports {

		@ExclusiveRequest(key = "#tenant", permits = 2)
		public String export(String tenant) {
			return "exported " + tenant;
		}

		@ExclusiveRequest(key = "#doc", mode = LockMode.READ)
		public String read(String doc) {
			return "read " + doc;
		}

		@ExclusiveRequest(key = "#doc")
		public String plain(String doc) {
			return doc;
		}

		@ExclusiveJob(permits = 3, holdAtLeast = "0s")
		public void nightly() {
		}

		@Configuration(proxyBeanMethods = false)
		static class Config {

			@Bean
			Reports reports() {
				return new Reports();
			}

		}

	}

}
