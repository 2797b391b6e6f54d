package dev.lockstarter.docs.migration;

/**
 * A shipment, the result of an example that runs under a lock.
 *
 * @param orderId the order shipped
 */
public record Shipment(String orderId) {

}
