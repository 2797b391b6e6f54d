package dev.lockstarter.sample.sum;

/**
 * How many times the expensive computation ran.
 *
 * @param calls the number of runs
 * @since 0.1.0
 */
public record SumCalls(long calls) {
}
