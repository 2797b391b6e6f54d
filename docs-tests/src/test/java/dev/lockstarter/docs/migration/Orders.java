package dev.lockstarter.docs.migration;

/**
 * The order operations of the migration examples.
 */
public interface Orders {

	Shipment ship(String orderId);

	void cancel(String orderId);

}
