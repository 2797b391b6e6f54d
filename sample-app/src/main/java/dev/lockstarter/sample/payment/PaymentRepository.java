package dev.lockstarter.sample.payment;

import java.util.List;
import java.util.Optional;

/**
 * Where payments are kept.
 *
 * @since 0.1.0
 */
public interface PaymentRepository {

	/**
	 * Store a new payment.
	 * @param payment the payment
	 */
	void save(Payment payment);

	/**
	 * Find a payment by id.
	 * @param paymentId the id
	 * @return the payment, or empty
	 */
	Optional<Payment> findById(String paymentId);

	/**
	 * Return every payment, in the order they were stored.
	 * @return the payments
	 */
	List<Payment> findAll();

}
