package dev.lockstarter.docs.idempotency;

/**
 * A payment made.
 *
 * @param paymentId its id
 * @param amount its amount
 */
public record Payment(String paymentId, long amount) {

}
