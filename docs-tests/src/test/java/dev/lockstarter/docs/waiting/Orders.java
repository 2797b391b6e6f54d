package dev.lockstarter.docs.waiting;

/**
 * Changes orders.
 */
public interface Orders {

	void ship(String orderId);

	void cancel(String orderId);

	void place(String orderId);

}
