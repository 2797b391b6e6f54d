package dev.lockstarter.interceptor;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.LockMode;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.interceptor.ExclusiveJobAttribute.SkippedResult;
import org.springframework.core.KotlinDetector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.util.StringValueResolver;

/**
 * Parses {@link ExclusiveJob} declarations: the method's shape (no parameters, a return
 * type a skipped tick can answer), the durations, and the minimum hold time. Without an
 * explicit {@link ExclusiveJob#holdAtLeast() holdAtLeast}, the minimum hold time is half
 * the shortest period of the method's {@link Scheduled @Scheduled} declarations (see
 * {@link SchedulePeriods}).
 */
final class ExclusiveJobAnnotationParser implements LockAnnotationParser<ExclusiveJobAttribute> {

	@Override
	public Class<? extends Annotation> annotationType() {
		return ExclusiveJob.class;
	}

	@Override
	public @Nullable ExclusiveJobAttribute parse(Method method, @Nullable StringValueResolver valueResolver) {
		ExclusiveJob annotation = AnnotatedElementUtils.findMergedAnnotation(method, ExclusiveJob.class);
		if (annotation == null) {
			return null;
		}
		DeclaredMethod declared = new DeclaredMethod(method, annotation.name(), valueResolver,
				InvalidExclusiveJobException::new);
		checkMethod(declared);
		SkippedResult skippedResult = skippedResult(declared);
		Duration ttl = declared.ttl(annotation.ttl());
		Duration maxHold = declared.duration("maxHold", annotation.maxHold(), false);
		Set<Scheduled> schedules = AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class);
		SchedulePeriods periods = new SchedulePeriods(declared);
		Duration period = periods.shortest(schedules);
		Duration holdAtLeast = declared.duration("holdAtLeast", annotation.holdAtLeast(), true);
		if (holdAtLeast == null && period == null && !schedules.isEmpty() && periods.allDisabled(schedules)) {
			// Turned off with cron = "-" here: the application must still start, and a
			// call made otherwise holds the lock no longer than it runs
			holdAtLeast = Duration.ZERO;
		}
		if (holdAtLeast == null) {
			if (period == null) {
				throw declared.invalid("holdAtLeast is required, as the method has no "
						+ "@Scheduled fixedRate, fixedDelay or cron to derive it from: set it a little above the "
						+ "largest difference between the instances' clocks, such as holdAtLeast = \"5s\" "
						+ "(\"0s\" for none)");
			}
			holdAtLeast = period.dividedBy(2);
		}
		else if (period != null && holdAtLeast.compareTo(period) >= 0) {
			throw declared.invalid("holdAtLeast (" + holdAtLeast + ") must be shorter than the shortest period of the "
					+ "method's @Scheduled (" + period + "), or each tick finds the lock of the previous one still "
					+ "held and is skipped on every instance");
		}
		LockKind kind = LockKinds.of(declared, annotation.permits(), LockMode.EXCLUSIVE);
		ExclusiveRequestAnnotationParser.checkOnLeaseLost(declared, annotation.onLeaseLost(),
				skippedResult == SkippedResult.COMPLETED_STAGE, false);
		return new ExclusiveJobAttribute(kind, declared.name(), holdAtLeast, period, ttl, maxHold, skippedResult,
				annotation.onLeaseLost());
	}

	private static void checkMethod(DeclaredMethod declared) {
		Method method = declared.method();
		declared.checkInterceptable("it would run on every instance", "");
		if (AnnotatedElementUtils.hasAnnotation(method, ExclusiveRequest.class)) {
			throw declared.invalid("@ExclusiveJob and @ExclusiveRequest cannot be combined; keep one");
		}
		if (KotlinDetector.isSuspendingFunction(method)) {
			throw declared.invalid("a suspend function cannot be an exclusive job yet: the lock would be released "
					+ "before the job ends; declare a plain function (wrapping the coroutine work in runBlocking)");
		}
		if (method.getParameterCount() > 0) {
			throw declared.invalid("a job takes no parameters: it has one lock, named after the job, so its arguments "
					+ "could not take part in the key; for a lock per argument value use @ExclusiveRequest(key = ...)");
		}
	}

	private static SkippedResult skippedResult(DeclaredMethod declared) {
		Class<?> returnType = declared.method().getReturnType();
		if (returnType == void.class) {
			return SkippedResult.NULL;
		}
		if (returnType.isPrimitive()) {
			throw declared.invalid("a job that returns a primitive " + returnType.getName() + " cannot be skipped, "
					+ "as a skipped tick has no value to return; return void or an object type (null when skipped)");
		}
		if (ReturnTypes.isPublisher(returnType)) {
			throw declared
				.invalid("reactive return types are not supported; return void, a value or a CompletionStage");
		}
		if (CompletionStage.class.isAssignableFrom(returnType)) {
			if (returnType != CompletionStage.class && returnType != CompletableFuture.class) {
				throw declared.invalid("an asynchronous job must be declared to return CompletionStage or "
						+ "CompletableFuture, not " + returnType.getName());
			}
			return SkippedResult.COMPLETED_STAGE;
		}
		return (returnType == Optional.class) ? SkippedResult.EMPTY_OPTIONAL : SkippedResult.NULL;
	}

}
