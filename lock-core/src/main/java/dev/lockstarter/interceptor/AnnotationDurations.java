package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.StringUtils;

/**
 * Parses the duration attributes of the lock annotations ({@code "10s"},
 * {@code "PT10S"}), after placeholder resolution, with one wording of the startup failure
 * for all of them.
 */
final class AnnotationDurations {

	private AnnotationDurations() {
	}

	/**
	 * Parse a duration attribute.
	 * @param attribute the attribute's name, for the failure message
	 * @param text the attribute's value with placeholders resolved
	 * @param zeroAllowed whether zero is a valid value
	 * @param invalid makes the failure to throw from its reason and cause
	 * @return the duration, or {@code null} when the value is empty
	 */
	static @Nullable Duration parse(String attribute, @Nullable String text, boolean zeroAllowed,
			BiFunction<String, @Nullable Throwable, RuntimeException> invalid) {
		if (!StringUtils.hasText(text)) {
			return null;
		}
		Duration duration;
		try {
			duration = DurationFormatterUtils.detectAndParse(text.strip());
		}
		catch (RuntimeException ex) {
			throw invalid.apply(attribute + " '" + text + "' is not a duration such as \"10s\" or \"PT10S\"", ex);
		}
		if (duration.isNegative() || (duration.isZero() && !zeroAllowed)) {
			throw invalid.apply(
					attribute + " must be " + (zeroAllowed ? "zero or positive" : "positive") + ", was '" + text + "'",
					null);
		}
		return duration;
	}

}
