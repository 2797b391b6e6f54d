package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockOptions;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ExclusiveJobAttributeSource}.
 */
class ExclusiveJobAttributeSourceTests {

	private static final LockOptions DEFAULTS = LockOptions.ttl(Duration.ofSeconds(30))
		.withWaitTime(Duration.ofSeconds(5))
		.withMaxHold(Duration.ofMinutes(10));

	private final ExclusiveJobAttributeSource source = new ExclusiveJobAttributeSource();

	@Test
	void nameDefaultsToTheDeclaringClassAndMethodAndTheJobNeverWaits() {
		ExclusiveJobAttribute attribute = attribute(Jobs.class, "everyTenSeconds");
		assertThat(attribute.name()).isEqualTo("Jobs.everyTenSeconds");
		LockOptions options = attribute.options(DEFAULTS);
		assertThat(options.getName()).isEqualTo("Jobs.everyTenSeconds");
		assertThat(options.getWaitTime()).isZero();
		assertThat(options.getTtl()).isEqualTo(Duration.ofSeconds(30));
		assertThat(options.getMaxHold()).isEqualTo(Duration.ofMinutes(10));
		assertThat(options.isRenew()).isTrue();
	}

	@Test
	void holdAtLeastDefaultsToHalfTheFixedRate() {
		ExclusiveJobAttribute attribute = attribute(Jobs.class, "everyTenSeconds");
		assertThat(attribute.schedulePeriod()).isEqualTo(Duration.ofSeconds(10));
		assertThat(attribute.holdAtLeast()).isEqualTo(Duration.ofSeconds(5));
		assertThat(attribute.options(DEFAULTS).getHoldAtLeast()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void holdAtLeastDefaultsToHalfTheFixedDelayInItsTimeUnit() {
		assertThat(attribute(Jobs.class, "everyTwoMinutesAfterTheLast").holdAtLeast()).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void holdAtLeastDefaultsToHalfTheShortestGapOfTheCronExpression() {
		// At seconds 0 and 10 of every minute: gaps of 10 s and 50 s
		ExclusiveJobAttribute attribute = attribute(Jobs.class, "cron");
		assertThat(attribute.schedulePeriod()).isEqualTo(Duration.ofSeconds(10));
		assertThat(attribute.holdAtLeast()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void placeholdersOfTheScheduleAndTheAnnotationAreResolved() {
		this.source.setEmbeddedValueResolver((value) -> switch (value) {
			case "${report.rate}" -> "PT4S";
			case "${report.ttl}" -> "1m";
			default -> value;
		});
		ExclusiveJobAttribute attribute = attribute(Jobs.class, "placeholders");
		assertThat(attribute.holdAtLeast()).isEqualTo(Duration.ofSeconds(2));
		assertThat(attribute.options(DEFAULTS).getTtl()).isEqualTo(Duration.ofMinutes(1));
	}

	@Test
	void explicitAttributesWinOverTheDefaults() {
		ExclusiveJobAttribute attribute = attribute(Jobs.class, "explicit");
		assertThat(attribute.name()).isEqualTo("nightly-export");
		LockOptions options = attribute.options(DEFAULTS);
		assertThat(options.getHoldAtLeast()).isEqualTo(Duration.ofSeconds(30));
		assertThat(options.getTtl()).isEqualTo(Duration.ofSeconds(20));
		assertThat(options.getMaxHold()).isEqualTo(Duration.ofHours(2));
		assertThat(options.getWaitTime()).isZero();
	}

	@Test
	void jobWithoutAPeriodicScheduleAndWithAnExplicitHoldAtLeastIsAccepted() {
		assertThat(attribute(Jobs.class, "triggeredElsewhere").holdAtLeast()).isZero();
	}

	@Test
	void jobWhoseCronIsTurnedOffStartsWithoutAMinimumHold() {
		this.source.setEmbeddedValueResolver((value) -> value.equals("${report.cron}") ? "-" : value);
		ExclusiveJobAttribute attribute = attribute(Jobs.class, "turnedOff");
		assertThat(attribute.schedulePeriod()).isNull();
		assertThat(attribute.holdAtLeast()).isZero();
	}

	@Test
	void skippedTicksReturnNothingOfTheMethodsReturnType() {
		assertThat(attribute(Jobs.class, "everyTenSeconds").skippedResult()).isNull();
		assertThat(attribute(Jobs.class, "report").skippedResult()).isNull();
		assertThat(attribute(Jobs.class, "optional").skippedResult()).isEqualTo(Optional.empty());
		ExclusiveJobAttribute async = attribute(Jobs.class, "async");
		assertThat(async.completionStage()).isTrue();
		assertThat(async.skippedResult()).isInstanceOfSatisfying(CompletableFuture.class,
				(stage) -> assertThat(stage).isCompletedWithValue(null));
	}

	@Test
	void methodWithoutTheAnnotationHasNoAttribute() {
		assertThat(this.source.getAttribute(method(Jobs.class, "notAJob"), Jobs.class)).isNull();
	}

	@Test
	void missingHoldAtLeastWithoutAScheduleIsRejected() {
		assertInvalid("noSchedule", "holdAtLeast is required");
	}

	@Test
	void holdAtLeastOfAWholePeriodIsRejected() {
		assertInvalid("holdAtLeastOfAPeriod", "holdAtLeast (PT10S) must be shorter than the shortest period");
	}

	@Test
	void negativeOrUnreadableDurationsAreRejectedNamingTheAttribute() {
		assertInvalid("negativeHoldAtLeast", "holdAtLeast must be zero or positive, was '-1s'");
		assertInvalid("zeroTtl", "ttl must be positive, was '0s'");
		assertInvalid("unreadableMaxHold", "maxHold 'ten minutes' is not a duration");
	}

	@Test
	void primitiveReturnTypeIsRejected() {
		assertInvalid("count", "a job that returns a primitive int cannot be skipped");
	}

	@Test
	void parametersAreRejected() {
		Method method = method(Invalid.class, "withParameter", String.class);
		assertThatExceptionOfType(InvalidExclusiveJobException.class)
			.isThrownBy(() -> this.source.getAttribute(method, Invalid.class))
			.withMessageContaining("Invalid @ExclusiveJob on " + Invalid.class.getName() + ".withParameter(String)")
			.withMessageContaining("a job takes no parameters");
	}

	@Test
	void unproxyableMethodsAndCombinationWithExclusiveRequestAreRejected() {
		assertInvalid("finalJob", "a final method cannot be intercepted");
		assertInvalid("bothAnnotations", "@ExclusiveJob and @ExclusiveRequest cannot be combined");
	}

	@Test
	void asynchronousJobMustBeDeclaredAsCompletionStageOrCompletableFuture() {
		assertInvalid("subclassOfCompletableFuture", "must be declared to return CompletionStage or CompletableFuture");
	}

	private void assertInvalid(String methodName, String reason) {
		Method method = method(Invalid.class, methodName);
		assertThatExceptionOfType(InvalidExclusiveJobException.class)
			.isThrownBy(() -> this.source.getAttribute(method, Invalid.class))
			.withMessageContaining("Invalid @ExclusiveJob on " + Invalid.class.getName() + "." + methodName + "()")
			.withMessageContaining(reason)
			.satisfies((ex) -> assertThat(ex.getMethod()).endsWith(methodName + "()"));
	}

	private ExclusiveJobAttribute attribute(Class<?> type, String name) {
		ExclusiveJobAttribute attribute = this.source.getAttribute(method(type, name), type);
		assertThat(attribute).isNotNull();
		return attribute;
	}

	private static Method method(Class<?> type, String name, Class<?>... parameterTypes) {
		Method method = ReflectionUtils.findMethod(type, name, parameterTypes);
		assertThat(method).isNotNull();
		return method;
	}

	static class Jobs {

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob
		public void everyTenSeconds() {
		}

		@Scheduled(fixedDelay = 2, timeUnit = TimeUnit.MINUTES)
		@ExclusiveJob
		public void everyTwoMinutesAfterTheLast() {
		}

		@Scheduled(cron = "0,10 * * * * *")
		@ExclusiveJob
		public void cron() {
		}

		@Scheduled(fixedRateString = "${report.rate}")
		@ExclusiveJob(ttl = "${report.ttl}")
		public void placeholders() {
		}

		@Scheduled(cron = "0 0 1 * * *")
		@ExclusiveJob(name = "nightly-export", holdAtLeast = "30s", ttl = "20s", maxHold = "2h")
		public void explicit() {
		}

		@ExclusiveJob(holdAtLeast = "0s")
		public void triggeredElsewhere() {
		}

		@Scheduled(cron = "${report.cron}")
		@ExclusiveJob
		public void turnedOff() {
		}

		@Scheduled(fixedRate = 1000)
		@ExclusiveJob
		public String report() {
			return "report";
		}

		@Scheduled(fixedRate = 1000)
		@ExclusiveJob
		public Optional<String> optional() {
			return Optional.of("report");
		}

		@Scheduled(fixedRate = 1000)
		@ExclusiveJob
		public CompletableFuture<String> async() {
			return CompletableFuture.completedFuture("report");
		}

		@Scheduled(fixedRate = 1000)
		public void notAJob() {
		}

	}

	static class Invalid {

		@ExclusiveJob
		public void noSchedule() {
		}

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob(holdAtLeast = "10s")
		public void holdAtLeastOfAPeriod() {
		}

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob(holdAtLeast = "-1s")
		public void negativeHoldAtLeast() {
		}

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob(ttl = "0s")
		public void zeroTtl() {
		}

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob(maxHold = "ten minutes")
		public void unreadableMaxHold() {
		}

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob
		public int count() {
			return 1;
		}

		@ExclusiveJob(holdAtLeast = "1s")
		public void withParameter(String day) {
		}

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob
		public final void finalJob() {
		}

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob
		@ExclusiveRequest
		public void bothAnnotations() {
		}

		@Scheduled(fixedRate = 10_000)
		@ExclusiveJob
		public Stage subclassOfCompletableFuture() {
			return new Stage();
		}

	}

	static class Stage extends CompletableFuture<String> {

	}

}
