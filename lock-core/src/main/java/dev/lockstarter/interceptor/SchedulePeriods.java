package dev.lockstarter.interceptor;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.support.CronExpression;
import org.springframework.util.StringUtils;

/**
 * The periods of a job method's {@link Scheduled @Scheduled} declarations, from which its
 * minimum hold time is derived: a {@code fixedRate} or {@code fixedDelay}, or the
 * shortest gap between the next firings of a {@code cron} expression.
 */
final class SchedulePeriods {

	/** Firings of a cron expression looked at to find its shortest gap. */
	private static final int CRON_FIRINGS = 16;

	private final DeclaredMethod declared;

	SchedulePeriods(DeclaredMethod declared) {
		this.declared = declared;
	}

	/**
	 * Return the shortest period of the method's {@code @Scheduled} declarations, or
	 * {@code null} if none is periodic.
	 */
	@Nullable Duration shortest(Set<Scheduled> schedules) {
		Duration shortest = null;
		for (Scheduled scheduled : schedules) {
			Duration period = period(scheduled);
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
	boolean allDisabled(Set<Scheduled> schedules) {
		for (Scheduled scheduled : schedules) {
			String cron = this.declared.resolve(scheduled.cron());
			if (cron == null || !Scheduled.CRON_DISABLED.equals(cron.strip())) {
				return false;
			}
		}
		return true;
	}

	private @Nullable Duration period(Scheduled scheduled) {
		TimeUnit unit = scheduled.timeUnit();
		Duration period = null;
		if (scheduled.fixedRate() > 0) {
			period = Duration.of(scheduled.fixedRate(), unit.toChronoUnit());
		}
		else if (scheduled.fixedDelay() > 0) {
			period = Duration.of(scheduled.fixedDelay(), unit.toChronoUnit());
		}
		else if (StringUtils.hasText(scheduled.fixedRateString())) {
			period = scheduleDuration("fixedRateString", scheduled.fixedRateString(), unit);
		}
		else if (StringUtils.hasText(scheduled.fixedDelayString())) {
			period = scheduleDuration("fixedDelayString", scheduled.fixedDelayString(), unit);
		}
		else if (StringUtils.hasText(scheduled.cron())) {
			period = cronPeriod(scheduled);
		}
		return (period != null && !period.isZero() && !period.isNegative()) ? period : null;
	}

	private @Nullable Duration scheduleDuration(String attribute, String value, TimeUnit unit) {
		String text = this.declared.resolve(value);
		if (!StringUtils.hasText(text)) {
			return null;
		}
		text = text.strip();
		try {
			return text.chars().allMatch(Character::isDigit) ? Duration.of(Long.parseLong(text), unit.toChronoUnit())
					: DurationFormatterUtils.detectAndParse(text);
		}
		catch (RuntimeException ex) {
			throw this.declared
				.invalid("the period of its @Scheduled(" + attribute + " = \"" + text + "\") cannot be read", ex);
		}
	}

	private @Nullable Duration cronPeriod(Scheduled scheduled) {
		String cron = this.declared.resolve(scheduled.cron());
		if (!StringUtils.hasText(cron) || Scheduled.CRON_DISABLED.equals(cron.strip())) {
			return null;
		}
		String zoneText = this.declared.resolve(scheduled.zone());
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
			throw this.declared.invalid(
					"the period of its @Scheduled(cron = \"" + cron + "\") cannot be read: " + ex.getMessage(), ex);
		}
	}

}
