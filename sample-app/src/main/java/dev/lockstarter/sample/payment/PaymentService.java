package dev.lockstarter.sample.payment;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.lockstarter.sample.SampleProperties;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.util.Assert;

/**
 * Takes payments. Each payment takes {@code sample.payments.latency}, standing for the
 * call to a payment provider, so that a retry can arrive while the first attempt is in
 * progress.
 *
 * @since 0.1.0
 */
@Service
public class PaymentService {

	private final PaymentRepository payments;

	private final Duration latency;

	/**
	 * Create a new payment service.
	 * @param payments where payments are kept
	 * @param properties the sample properties holding the simulated latency
	 */
	public PaymentService(PaymentRepository payments, SampleProperties properties) {
		Duration latency = properties.getPayments().getLatency();
		Assert.isTrue(!latency.isNegative(), "'sample.payments.latency' must not be negative");
		this.payments = payments;
		this.latency = latency;
	}

	/**
	 * Take a payment, in a transaction where there is a transaction manager (the
	 * {@code jdbc} profile). With {@code lock.idempotency.transactional=true} it joins
	 * the transaction of the idempotent request, which also keeps the response.
	 * @param amount the amount, positive
	 * @return the stored payment
	 */
	@Transactional
	public Payment pay(long amount) {
		simulateLatency();
		Payment payment = new Payment(UUID.randomUUID().toString(), amount);
		this.payments.save(payment);
		return payment;
	}

	/**
	 * Find a payment by id.
	 * @param paymentId the id
	 * @return the payment
	 * @throws PaymentNotFoundException if there is none
	 */
	public Payment findById(String paymentId) {
		return this.payments.findById(paymentId).orElseThrow(() -> new PaymentNotFoundException(paymentId));
	}

	/**
	 * Return every payment.
	 * @return the payments, in the order they were taken
	 */
	public List<Payment> findAll() {
		return this.payments.findAll();
	}

	private void simulateLatency() {
		try {
			Thread.sleep(this.latency.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while calling the payment provider", ex);
		}
	}

}
