package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.interceptor.ExclusiveJobAttribute.SkippedResult;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.annotation.Schedules;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Finds and parses {@link ExclusiveJob} declarations, once per method and target class,
 * and caches the result. Parsing validates the declaration; a problem is reported as an
 * {@link InvalidExclusiveJobException} naming the method and the attribute.
 * <p>
 * Without an explicit {@link ExclusiveJob#holdAtLeast() holdAtLeast}, the minimum hold
 * time is half the shortest period of the method's {@link Scheduled @Scheduled}
 * declarations: its {@code fixedRate} or {@code fixedDelay}, or the shortest gap between
 * the next firings of its {@code cron} expression.
 *
 * @since 0.1.0
 */
public class ExclusiveJobAttributeSource implements EmbeddedValueResolverAware {

	private static final Object NONE = new Object();

	/** Firings of a cron expression looked at to find its shortest gap. */
	private static final int CRON_FIRINGS = 16;

	private static final @Nullable Class<?> PUBLISHER = loadOptional(
			ExclusiveRequestAttributeSource.PUBLISHER_TYPE_NAME);

	private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>(64);

	private @Nullable StringValueResolver valueResolver;

	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.valueResolver = resolver;
	}

	/**
	 * Return the parsed declaration that applies to a method invoked on a target class.
	 * @param method the invoked method, possibly an interface method
	 * @param targetClass the target class, or {@code null} if unknown
	 * @return the declaration, or {@code null} if the method is not annotated
	 * @throws InvalidExclusiveJobException if the declaration is invalid
	 */
	public @Nullable ExclusiveJobAttribute getAttribute(Method method, @Nullable Class<?> targetClass) {
		MethodClassKey cacheKey = new MethodClassKey(method, targetClass);
		Object cached = this.cache.get(cacheKey);
		if (cached == null) {
			Method specificMethod = AopUtils.getMostSpecificMethod(method, targetClass);
			ExclusiveJobAttribute attribute = parse(specificMethod);
			if (attribute == null && specificMethod != method) {
				attribute = parse(method);
			}
			cached = (attribute != null) ? attribute : NONE;
			this.cache.put(cacheKey, cached);
		}
		return (cached != NONE) ? (ExclusiveJobAttribute) cached : null;
	}

	private @Nullable ExclusiveJobAttribute parse(Method method) {
		// Kotlin's static '$suspendImpl' copy of an open suspend function: the function
		// itself is checked, and refused
		if (method.isSynthetic() && Modifier.isStatic(method.getModifiers())) {
			return null;
		}
		ExclusiveJob annotation = AnnotatedElementUtils.findMergedAnnotation(method, ExclusiveJob.class);
		if (annotation == null) {
			return null;
		}
		String name = StringUtils.hasText(annotation.name()) ? annotation.name().strip()
				: method.getDeclaringClass().getSimpleName() + "." + method.getName();
		checkMethod(method, name);
		SkippedResult skippedResult = skippedResult(method, name);
		Duration ttl = parseDuration(method, name, "ttl", annotation.ttl(), false);
		Duration maxHold = parseDuration(method, name, "maxHold", annotation.maxHold(), false);
		Set<Scheduled> schedules = AnnotatedElementUtils.getMergedRepeatableAnnotations(method, Scheduled.class,
				Schedules.class);
		Duration period = schedulePeriod(method, name, schedules);
		Duration holdAtLeast = parseDuration(method, name, "holdAtLeast", annotation.holdAtLeast(), true);
		if (holdAtLeast == null && period == null && !schedules.isEmpty() && allDisabled(schedules)) {
			// Turned off with cron = "-" here: it must still start, and a call made
			// otherwise holds no longer than it runs
			holdAtLeast = Duration.ZERO;
		}
		if (holdAtLeast == null) {
			if (period == null) {
				throw new InvalidExclusiveJobException(method, name, "holdAtLeast is required, as the method has no "
						+ "@Scheduled fixedRate, fixedDelay or cron to derive it from: set it a little above the "
						+ "largest difference between the instances' clocks, such as holdAtLeast = \"5s\" "
						+ "(\"0s\" for none)", null);
			}
			holdAtLeast = period.dividedBy(2);
		}
		else if (period != null && holdAtLeast.compareTo(period) >= 0) {
			throw new InvalidExclusiveJobException(method, name,
					"holdAtLeast (" + holdAtLeast + ") must be shorter than the shortest period of the method's "
							+ "@Scheduled (" + period + "), or each tick finds the lock of the previous one still "
							+ "held and is skipped on every instance",
					null);
		}
		return new ExclusiveJobAttribute(name, holdAtLeast, period, ttl, maxHold, skippedResult);
	}

	private static void checkMethod(Method method, String name) {
		int modifiers = method.getModifiers();
		String problem = Modifier.isPrivate(modifiers) ? "private"
				: Modifier.isStatic(modifiers) ? "static" : Modifier.isFinal(modifiers) ? "final" : null;
		if (problem != null) {
			throw new InvalidExclusiveJobException(method, name,
					"a " + problem + " method cannot be intercepted by a Spring proxy, so it would run on every "
							+ "instance; make it a public, non-final instance method",
					null);
		}
		if (AnnotatedElementUtils.hasAnnotation(method, ExclusiveRequest.class)) {
			throw new InvalidExclusiveJobException(method, name,
					"@ExclusiveJob and @ExclusiveRequest cannot be combined; keep one", null);
		}
		if (KotlinDetector.isSuspendingFunction(method)) {
			throw new InvalidExclusiveJobException(method, name,
					"a suspend function cannot be an exclusive job yet: the lock would be released before the job "
							+ "ends; declare a plain function (wrapping the coroutine work in runBlocking)",
					null);
		}
		if (method.getParameterCount() > 0) {
			throw new InvalidExclusiveJobException(method, name,
					"a job takes no parameters: it has one lock, named after the job, so its arguments could not "
							+ "take part in the key; for a lock per argument value use "
							+ "@ExclusiveRequest(key = ...)",
					null);
		}
	}

	private static SkippedResult skippedResult(Method method, String name) {
		Class<?> returnType = method.getReturnType();
		if (returnType == void.class) {
			return SkippedResult.NULL;
		}
		if (returnType.isPrimitive()) {
			throw new InvalidExclusiveJobException(method, name,
					"a job that returns a primitive " + returnType.getName() + " cannot be skipped, as a skipped "
							+ "tick has no value to return; return void or an object type (null when skipped)",
					null);
		}
		if (PUBLISHER != null && PUBLISHER.isAssignableFrom(returnType)) {
			throw new InvalidExclusiveJobException(method, name,
					"reactive return types are not supported; return void, a value or a CompletionStage", null);
		}
		if (CompletionStage.class.isAssignableFrom(returnType)) {
			if (returnType != CompletionStage.class && returnType != CompletableFuture.class) {
				throw new InvalidExclusiveJobException(method, name, "an asynchronous job must be declared to "
						+ "return CompletionStage or CompletableFuture, not " + returnType.getName(), null);
			}
			return SkippedResult.COMPLETED_STAGE;
		}
		return (returnType == Optional.class) ? SkippedResult.EMPTY_OPTIONAL : SkippedResult.NULL;
	}

	/**
	 * Return the shortest period of the method's {@code @Scheduled} declarations, or
	 * {@code null} if none is periodic.
	 */
	private @Nullable Duration schedulePeriod(Method method, String name, Set<Scheduled> schedules) {
		Duration shortest = null;
		for (Scheduled scheduled : schedules) {
			Duration period = period(method, name, scheduled);
			if (period != null && (shortest == null || period.compareTo(shortest) < 0)) {
				shortest = period;
			}
		}
		return shortest;
	}

	/**
	 * Return whether every {@code @Scheduled} of a method is a cron expression turned off
	 * with {@code "-"} ({@link Scheduled#CRON_DISABLED}).
	 */
	private boolean allDisabled(Set<Scheduled> schedules) {
		for (Scheduled scheduled : schedules) {
			String cron = resolve(scheduled.cron());
			if (cron == null || !Scheduled.CRON_DISABLED.equals(cron.strip())) {
				return false;
			}
		}
		return true;
	}

	private @Nullable Duration period(Method method, String name, Scheduled scheduled) {
		TimeUnit unit = scheduled.timeUnit();
		Duration period = null;
		if (scheduled.fixedRate() > 0) {
			period = Duration.of(scheduled.fixedRate(), unit.toChronoUnit());
		}
		else if (scheduled.fixedDelay() > 0) {
			period = Duration.of(scheduled.fixedDelay(), unit.toChronoUnit());
		}
		else if (StringUtils.hasText(scheduled.fixedRateString())) {
			period = scheduleDuration(method, name, "fixedRateString", scheduled.fixedRateString(), unit);
		}
		else if (StringUtils.hasText(scheduled.fixedDelayString())) {
			period = scheduleDuration(method, name, "fixedDelayString", scheduled.fixedDelayString(), unit);
		}
		else if (StringUtils.hasText(scheduled.cron())) {
			period = cronPeriod(method, name, scheduled);
		}
		return (period != null && !period.isZero() && !period.isNegative()) ? period : null;
	}

	private @Nullable Duration scheduleDuration(Method method, String name, String attribute, String value,
			TimeUnit unit) {
		String text = resolve(value);
		if (!StringUtils.hasText(text)) {
			return null;
		}
		text = text.strip();
		try {
			return text.chars().allMatch(Character::isDigit) ? Duration.of(Long.parseLong(text), unit.toChronoUnit())
					: DurationFormatterUtils.detectAndParse(text);
		}
		catch (RuntimeException ex) {
			throw new InvalidExclusiveJobException(method, name,
					"the period of its @Scheduled(" + attribute + " = \"" + text + "\") cannot be read", ex);
		}
	}

	private @Nullable Duration cronPeriod(Method method, String name, Scheduled scheduled) {
		String cron = resolve(scheduled.cron());
		if (!StringUtils.hasText(cron) || Scheduled.CRON_DISABLED.equals(cron.strip())) {
			return null;
		}
		String zoneText = resolve(scheduled.zone());
		try {
			CronExpression expression = CronExpression.parse(cron.strip());
			ZoneId zone = StringUtils.hasText(zoneText) ? ZoneId.of(zoneText.strip()) : ZoneId.systemDefault();
			ZonedDateTime previous = expression.next(ZonedDateTime.now(zone));
			Duration shortest = null;
			for (int i = 0; previous != null && i < CRON_FIRINGS; i++) {
				ZonedDateTime next = expression.next(previous);
				if (next == null) {
					break;
				}
				Duration gap = Duration.between(previous, next);
				if (shortest == null || gap.compareTo(shortest) < 0) {
					shortest = gap;
				}
				previous = next;
			}
			return shortest;
		}
		catch (RuntimeException ex) {
			throw new InvalidExclusiveJobException(method, name,
					"the period of its @Scheduled(cron = \"" + cron + "\") cannot be read: " + ex.getMessage(), ex);
		}
	}

	private @Nullable String resolve(String value) {
		return (this.valueResolver != null && StringUtils.hasText(value)) ? this.valueResolver.resolveStringValue(value)
				: value;
	}

	private @Nullable Duration parseDuration(Method method, String name, String attribute, String value,
			boolean zeroAllowed) {
		return AnnotationDurations.parse(attribute, resolve(value), zeroAllowed,
				(reason, cause) -> new InvalidExclusiveJobException(method, name, reason, cause));
	}

	private static @Nullable Class<?> loadOptional(String name) {
		try {
			return ClassUtils.forName(name, ExclusiveJobAttributeSource.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

}
