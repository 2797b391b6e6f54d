package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor;
import dev.lockstarter.interceptor.ExclusiveRequestInterceptor;
import dev.lockstarter.interceptor.InvalidExclusiveRequestException;
import dev.lockstarter.interceptor.StoreFailurePolicy;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import dev.lockstarter.store.redis.RedisLockStore;
import dev.lockstarter.web.LockExceptionHandler;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.expression.ParseException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link LockAutoConfiguration} and {@link LockWebAutoConfiguration}.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockAutoConfigurationTests {

	private final ApplicationContextRunner starterContextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LockWebAutoConfiguration.class))
		.withClassLoader(StoreModules.only(RedisLockStore.class));

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LockWebAutoConfiguration.class))
		.withPropertyValues("lock.store=memory");

	private final ApplicationContextRunner redisContextRunner = this.starterContextRunner
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class));

	@Test
	void fallsBackToInMemoryStoreWithWarningWhenRedisIsAbsent(CapturedOutput output) {
		this.starterContextRunner.run((context) -> {
			assertThat(context).hasSingleBean(InMemoryLockStore.class);
			assertThat(context).hasSingleBean(LockTemplate.class);
			assertThat(context).hasSingleBean(ExclusiveRequestAdvisor.class);
			assertThat(output).contains("WARN").contains("using the in-memory lock store");
		});
	}

	@Test
	void usesRedisStoreWhenConnectionFactoryExists(CapturedOutput output) {
		this.redisContextRunner.run((context) -> {
			assertThat(context).hasSingleBean(RedisLockStore.class);
			assertThat(context).doesNotHaveBean(InMemoryLockStore.class);
			assertThat(output).contains("Using the Redis lock store").contains("within PT2S (lock.redis.timeout)");
		});
	}

	@Test
	void explicitMemoryStoreWinsOverRedisWithoutWarning(CapturedOutput output) {
		this.redisContextRunner.withPropertyValues("lock.store=memory").run((context) -> {
			assertThat(context).hasSingleBean(InMemoryLockStore.class);
			assertThat(context).doesNotHaveBean(RedisLockStore.class);
			assertThat(output).contains("Using the in-memory lock store").doesNotContain("No RedisConnectionFactory");
		});
	}

	@Test
	void explicitRedisStoreWithoutRedisFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("lock.store=redis").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("No RedisConnectionFactory");
		});
	}

	@Test
	void disabledCreatesNoLockBeans() {
		this.redisContextRunner.withPropertyValues("lock.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(LockStore.class);
			assertThat(context).doesNotHaveBean(LockOperations.class);
			assertThat(context).doesNotHaveBean(ExclusiveRequestAdvisor.class);
		});
	}

	@Test
	void userDefinedBeansReplaceTheDefaults() {
		this.redisContextRunner.withUserConfiguration(CustomBeans.class).run((context) -> {
			assertThat(context).getBean(LockStore.class).isSameAs(context.getBean("customStore"));
			assertThat(context).getBean(LockOperations.class).isSameAs(context.getBean("customOperations"));
		});
	}

	@Test
	void storeFailuresFailClosedByDefault(CapturedOutput output) {
		this.contextRunner.run((context) -> {
			ExclusiveRequestInterceptor interceptor = (ExclusiveRequestInterceptor) context
				.getBean(ExclusiveRequestAdvisor.class)
				.getAdvice();
			assertThat(interceptor.getStoreFailurePolicy()).isEqualTo(StoreFailurePolicy.FAIL_CLOSED);
			assertThat(output).doesNotContain("fail-open");
		});
	}

	@Test
	void failOpenIsSetOnTheInterceptorAndWarnedAboutAtStartup(CapturedOutput output) {
		this.contextRunner.withPropertyValues("lock.on-store-failure=fail-open").run((context) -> {
			ExclusiveRequestInterceptor interceptor = (ExclusiveRequestInterceptor) context
				.getBean(ExclusiveRequestAdvisor.class)
				.getAdvice();
			assertThat(interceptor.getStoreFailurePolicy()).isEqualTo(StoreFailurePolicy.FAIL_OPEN);
			assertThat(context.getBean(LockProperties.class).getOnStoreFailure())
				.isEqualTo(StoreFailurePolicy.FAIL_OPEN);
			assertThat(output).contains("WARN").contains("lock.on-store-failure=fail-open").contains("WITHOUT a lock");
		});
	}

	@Test
	void unknownStoreFailurePolicyFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("lock.on-store-failure=sometimes")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.hasStackTraceContaining("lock.on-store-failure"));
	}

	@Test
	void aLossMarginOutsideItsRangeFailsNamingTheProperty() {
		for (String margin : new String[] { "0", "-0.1", "0.6" }) {
			this.contextRunner.withPropertyValues("lock.loss-margin=" + margin)
				.run((context) -> assertThat(context).hasFailed()
					.getFailure()
					.rootCause()
					.isInstanceOf(InvalidConfigurationPropertyValueException.class)
					.hasMessageContaining("lock.loss-margin"));
		}
	}

	@Test
	void nonPositiveTtlFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("lock.ttl=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.ttl"));
		this.contextRunner.withPropertyValues("lock.ttl=-5s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.ttl"));
	}

	@Test
	void ttlBelowOneMillisecondFailsNamingThePropertyAndTheFloor() {
		this.contextRunner.withPropertyValues("lock.ttl=500us")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.ttl")
				.hasMessageContaining("at least 1ms"));
		this.contextRunner.withPropertyValues("lock.ttl=1ms").run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void conflictStatusOutside4xxFailsNamingTheProperty() {
		this.contextRunner.withPropertyValues("lock.web.conflict-status=500")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.web.conflict-status"));
	}

	@Test
	void keyPrefixAndOrderAreApplied() {
		this.contextRunner.withPropertyValues("lock.key-prefix=app1:", "lock.order=42", "lock.ttl=5s")
			.withUserConfiguration(ValidService.class)
			.run((context) -> {
				assertThat(context.getBean(ExclusiveRequestAdvisor.class).getOrder()).isEqualTo(42);
				LockOperations locks = context.getBean(LockOperations.class);
				LockStore store = context.getBean(LockStore.class);
				try (var lease = locks.acquire("k", Duration.ofSeconds(5))) {
					assertThat(store.tryAcquire("app1:k", "other", Duration.ofSeconds(1)).isAcquired()).isFalse();
				}
			});
	}

	@Test
	void unparsableKeyExpressionFailsStartupNamingTheMethod() {
		this.contextRunner.withUserConfiguration(BadExpressionService.class).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			assertThat(failure).rootCause().isInstanceOf(ParseException.class);
			assertThat(causes(failure)).hasAtLeastOneElementOfType(InvalidExclusiveRequestException.class);
			FailureAnalysis analysis = new InvalidLockDeclarationFailureAnalyzer().analyze(failure);
			assertThat(analysis.getDescription()).contains("BadExpressionService.register(String)")
				.contains("cannot be parsed");
			assertThat(analysis.getAction()).contains("BadExpressionService.register(String)");
		});
	}

	@Test
	void keyExpressionNamingAnUnknownParameterFailsStartup() {
		this.contextRunner.withUserConfiguration(UnknownParameterService.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidExclusiveRequestException.class)
				.hasMessageContaining("#name")
				.hasMessageContaining("userName"));
	}

	@Test
	void annotatedFinalMethodFailsStartupBecauseItCannotBeIntercepted() {
		this.contextRunner.withUserConfiguration(FinalMethodService.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidExclusiveRequestException.class)
				.hasMessageContaining("final method cannot be intercepted"));
	}

	@Test
	void annotatedPrivateMethodFailsStartupBecauseItCannotBeIntercepted() {
		this.contextRunner.withUserConfiguration(PrivateMethodService.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidExclusiveRequestException.class)
				.hasMessageContaining("private method cannot be intercepted"));
	}

	@Test
	void invalidAnnotationTtlFailsStartup() {
		this.contextRunner.withUserConfiguration(BadTtlService.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidExclusiveRequestException.class)
				.hasMessageContaining("ttl must be positive"));
	}

	@Test
	void annotationTtlPlaceholderIsResolved() {
		this.contextRunner.withPropertyValues("app.register-ttl=1500ms")
			.withUserConfiguration(PlaceholderTtlService.class)
			.run((context) -> assertThat(context.getBean(PlaceholderTtlService.class).register("alice"))
				.isGreaterThan(Duration.ofMillis(1000))
				.isLessThanOrEqualTo(Duration.ofMillis(1500)));
	}

	@Test
	void webApplicationGetsTheProblemHandlerWithTheConfiguredStatus() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LockWebAutoConfiguration.class))
			.withPropertyValues("lock.store=memory", "lock.web.conflict-status=422")
			.run((context) -> {
				assertThat(context).hasSingleBean(LockExceptionHandler.class);
				var response = context.getBean(LockExceptionHandler.class)
					.handleLockConflict(new dev.lockstarter.core.LockConflictException("n", Duration.ofMillis(1200)));
				assertThat(response.getStatusCode().value()).isEqualTo(422);
				assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo("2");
			});
	}

	@Test
	void webApplicationAnswersALostLeaseWithTheConfiguredStatus() {
		WebApplicationContextRunner runner = new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LockWebAutoConfiguration.class))
			.withPropertyValues("lock.store=memory");
		dev.lockstarter.core.LeaseLostException lost = new dev.lockstarter.core.LeaseLostException("n", "n:k", "lost");
		runner.run((context) -> assertThat(
				context.getBean(LockExceptionHandler.class).handleLeaseLost(lost).getStatusCode().value())
			.isEqualTo(503));
		runner.withPropertyValues("lock.web.lease-lost-status=409")
			.run((context) -> assertThat(
					context.getBean(LockExceptionHandler.class).handleLeaseLost(lost).getStatusCode().value())
				.isEqualTo(409));
		runner.withPropertyValues("lock.web.lease-lost-status=500")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.web.lease-lost-status"));
	}

	@Test
	void onLeaseLostIsAppliedAndMustBeReportOrCancel() {
		this.contextRunner.withPropertyValues("lock.on-lease-lost=cancel")
			.run((context) -> assertThat(((dev.lockstarter.interceptor.ExclusiveRequestInterceptor) context
				.getBean(ExclusiveRequestAdvisor.class)
				.getAdvice()).getOnLeaseLost()).isEqualTo(dev.lockstarter.annotation.OnLeaseLost.CANCEL));
		this.contextRunner.withPropertyValues("lock.on-lease-lost=default")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("lock.on-lease-lost"));
	}

	@Test
	void nonWebApplicationGetsNoProblemHandler() {
		this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(LockExceptionHandler.class));
	}

	private static List<Throwable> causes(Throwable failure) {
		List<Throwable> causes = new ArrayList<>();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			causes.add(cause);
		}
		return causes;
	}

	@Configuration(proxyBeanMethods = false)
	static class CustomBeans {

		@Bean
		LockStore customStore() {
			return new InMemoryLockStore();
		}

		@Bean
		LockOperations customOperations(LockStore customStore) {
			return new LockTemplate(customStore, "custom:");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ValidService {

		@ExclusiveRequest(key = "#userName")
		public String register(String userName) {
			return userName;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadExpressionService {

		@ExclusiveRequest(key = "#userName.")
		public String register(String userName) {
			return userName;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownParameterService {

		@ExclusiveRequest(key = "#name")
		public String register(String userName) {
			return userName;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FinalMethodService {

		@ExclusiveRequest(key = "#userName")
		public final String register(String userName) {
			return userName;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PrivateMethodService {

		@ExclusiveRequest(key = "#userName")
		private String register(String userName) {
			return userName;
		}

		public String callRegister(String userName) {
			return register(userName);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadTtlService {

		@ExclusiveRequest(key = "#userName", ttl = "-1s")
		public String register(String userName) {
			return userName;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlaceholderTtlService {

		private final LockStore store;

		PlaceholderTtlService(LockStore store) {
			this.store = store;
		}

		/** Returns the remaining time-to-live of its own lock, seen by a competitor. */
		@ExclusiveRequest(key = "#userName", ttl = "${app.register-ttl}")
		public Duration register(String userName) {
			var conflict = this.store.tryAcquire("lock:PlaceholderTtlService.register:" + userName, "other",
					Duration.ofSeconds(1));
			assertThat(conflict.isAcquired()).isFalse();
			return conflict.holderRemainingTtl();
		}

	}

}
