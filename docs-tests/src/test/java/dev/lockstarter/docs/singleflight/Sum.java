package dev.lockstarter.docs.singleflight;

/**
 * The result of a sum.
 *
 * @param sum the sum
 */
public record Sum(long sum) {

}
