package dev.lockstarter.sample.counter;

/**
 * A named counter and its value.
 *
 * @param name the counter's name
 * @param value the counter's value
 * @since 0.1.0
 */
public record Counter(String name, long value) {
}
