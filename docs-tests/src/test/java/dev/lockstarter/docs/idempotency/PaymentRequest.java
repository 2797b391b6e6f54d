package dev.lockstarter.docs.idempotency;

/**
 * The body of a payment request.
 *
 * @param amount the amount to pay
 */
public record PaymentRequest(long amount) {

}
