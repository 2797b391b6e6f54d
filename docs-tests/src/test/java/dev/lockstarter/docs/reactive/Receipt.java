package dev.lockstarter.docs.reactive;

/**
 * The receipt of a payment.
 *
 * @param orderId the order paid
 */
public record Receipt(String orderId) {

}
