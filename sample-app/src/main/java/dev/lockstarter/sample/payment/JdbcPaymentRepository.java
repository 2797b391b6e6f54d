package dev.lockstarter.sample.payment;

import java.util.List;
import java.util.Optional;

import dev.lockstarter.sample.SampleDatabase;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * {@link PaymentRepository} that keeps payments in a table of the application's database
 * ({@code sample_payments}), so that every instance sees the same payments. The table has
 * no unique constraint that would stop a second payment for one request: duplicates, if
 * any, stay visible.
 *
 * @since 0.1.0
 */
public class JdbcPaymentRepository implements PaymentRepository {

	private final JdbcClient jdbc;

	/**
	 * Create a new repository.
	 * @param jdbc the client to reach the database with
	 */
	public JdbcPaymentRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Create the {@code sample_payments} table if it does not exist.
	 * @param database the database the table lives in
	 */
	public void createTableIfNotExists(SampleDatabase database) {
		this.jdbc.sql("""
				CREATE TABLE IF NOT EXISTS sample_payments (
					seq %s,
					payment_id VARCHAR(64) NOT NULL UNIQUE,
					amount BIGINT NOT NULL
				)""".formatted(database.identityColumn())).update();
	}

	@Override
	public void save(Payment payment) {
		this.jdbc.sql("INSERT INTO sample_payments (payment_id, amount) VALUES (?, ?)")
			.params(payment.paymentId(), payment.amount())
			.update();
	}

	@Override
	public Optional<Payment> findById(String paymentId) {
		return this.jdbc.sql("SELECT payment_id, amount FROM sample_payments WHERE payment_id = ?")
			.param(paymentId)
			.query(Payment.class)
			.optional();
	}

	@Override
	// JdbcClient.query(Class) has @Nullable rows; a Payment row is not null
	@SuppressWarnings("NullAway")
	public List<Payment> findAll() {
		return this.jdbc.sql("SELECT payment_id, amount FROM sample_payments ORDER BY seq").query(Payment.class).list();
	}

}
