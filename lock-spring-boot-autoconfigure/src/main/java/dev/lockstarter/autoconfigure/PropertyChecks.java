package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The checks that the properties classes of this module make of their durations, each
 * failing with the name of the property to fix.
 */
final class PropertyChecks {

	private PropertyChecks() {
	}

	/**
	 * Fail unless the duration is positive.
	 * @param name the property's name
	 * @param value the property's value
	 * @param reason the failure's description
	 */
	static void positive(String name, Duration value, String reason) {
		if (!isPositive(value)) {
			throw new InvalidConfigurationPropertyValueException(name, value, reason);
		}
	}

	/**
	 * Fail if the duration is missing or negative.
	 * @param name the property's name
	 * @param value the property's value
	 * @param reason the failure's description
	 */
	static void notNegative(String name, @Nullable Duration value, String reason) {
		if (value == null || value.isNegative()) {
			throw new InvalidConfigurationPropertyValueException(name, value, reason);
		}
	}

	/**
	 * Return whether the duration is longer than zero.
	 * @param duration the duration
	 * @return {@code true} if it is positive
	 */
	static boolean isPositive(Duration duration) {
		return !duration.isZero() && !duration.isNegative();
	}

}
