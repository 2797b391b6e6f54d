package dev.lockstarter.sample.sum;

/**
 * The sum of some values.
 *
 * @param sum the sum
 * @since 0.1.0
 */
public record Sum(long sum) {
}
