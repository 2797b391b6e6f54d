package dev.lockstarter.sample.payment;

/**
 * A payment, as stored and as returned by the API.
 *
 * @param paymentId the id issued when the payment was taken
 * @param amount the amount paid, in minor units
 * @since 0.1.0
 */
public record Payment(String paymentId, long amount) {

}
