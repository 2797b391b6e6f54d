package dev.lockstarter.sample.payment;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@link PaymentRepository} that keeps payments in this process's memory.
 *
 * @since 0.1.0
 */
public class InMemoryPaymentRepository implements PaymentRepository {

	private final Map<String, Payment> paymentsById = new ConcurrentHashMap<>();

	private final List<Payment> payments = new CopyOnWriteArrayList<>();

	@Override
	public void save(Payment payment) {
		this.paymentsById.put(payment.paymentId(), payment);
		this.payments.add(payment);
	}

	@Override
	public Optional<Payment> findById(String paymentId) {
		return Optional.ofNullable(this.paymentsById.get(paymentId));
	}

	@Override
	public List<Payment> findAll() {
		return List.copyOf(this.payments);
	}

}
