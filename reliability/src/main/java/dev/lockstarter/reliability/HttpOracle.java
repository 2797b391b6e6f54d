package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.List;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What the {@link HttpInstance hooks} of the sample app's instances tell the oracle Redis
 * about idempotent payments, and what the {@link HttpScenarioRun} reads back. Each record
 * is one entry of a list, space-separated fields:
 * <ul>
 * <li>{@code paid}: {@code key instance paymentId millis}, the payment became
 * durable;</li>
 * <li>{@code kept}: {@code key instance paymentId windowMicros millis}, its response was
 * kept; {@code windowMicros} is the time from {@code paid} to {@code kept} on that
 * instance, {@code -1} when the response was kept first (in the same transaction);</li>
 * <li>{@code not-kept}: {@code key instance paymentId millis}, the store did not keep the
 * response (it failed, or the lock had expired);</li>
 * <li>{@code crashed}: {@code key instance point millis}, the instance halted at a crash
 * point.</li>
 * </ul>
 */
final class HttpOracle implements AutoCloseable {

	static final String PAID = "http:paid";

	static final String KEPT = "http:kept";

	static final String CRASHED = "http:crashed";

	static final String NOT_KEPT = "http:not-kept";

	private final LettuceConnectionFactory connectionFactory;

	private final StringRedisTemplate redis;

	HttpOracle(String host, int port) {
		this.connectionFactory = Oracle.connectionFactory(host, port, Duration.ofSeconds(30));
		this.redis = new StringRedisTemplate(this.connectionFactory);
	}

	void paid(String key, String instance, String paymentId) {
		append(PAID, key + " " + instance + " " + paymentId);
	}

	void kept(String key, String instance, String paymentId, long windowMicros) {
		append(KEPT, key + " " + instance + " " + paymentId + " " + windowMicros);
	}

	void notKept(String key, String instance, String paymentId) {
		append(NOT_KEPT, key + " " + instance + " " + paymentId);
	}

	void crashed(String key, String instance, String point) {
		append(CRASHED, key + " " + instance + " " + point);
	}

	List<String[]> records(String list) {
		List<String> records = this.redis.opsForList().range(list, 0, -1);
		return (records != null) ? records.stream().map((record) -> record.split(" ")).toList() : List.of();
	}

	private void append(String list, String record) {
		this.redis.opsForList().rightPush(list, record + " " + System.currentTimeMillis());
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

}
