package dev.lockstarter.sample.payment;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.CollectionUtils;

/**
 * {@link PaymentRepository} that keeps payments in Redis, so that every instance of the
 * application sees the same payments:
 * <ul>
 * <li>{@code sample:payments:{paymentId}}: the payment as JSON;</li>
 * <li>{@code sample:payment-ids}: a list of the ids, in the order they were stored.</li>
 * </ul>
 *
 * @since 0.1.0
 */
public class RedisPaymentRepository implements PaymentRepository {

	private static final String PAYMENT_KEY_PREFIX = "sample:payments:";

	private static final String IDS_KEY = "sample:payment-ids";

	private final StringRedisTemplate redis;

	private final JsonMapper jsonMapper;

	/**
	 * Create a new repository.
	 * @param redis the template to reach Redis with
	 * @param jsonMapper the mapper that writes and reads payments as JSON
	 */
	public RedisPaymentRepository(StringRedisTemplate redis, JsonMapper jsonMapper) {
		this.redis = redis;
		this.jsonMapper = jsonMapper;
	}

	@Override
	public void save(Payment payment) {
		this.redis.opsForValue()
			.set(PAYMENT_KEY_PREFIX + payment.paymentId(), this.jsonMapper.writeValueAsString(payment));
		this.redis.opsForList().rightPush(IDS_KEY, payment.paymentId());
	}

	@Override
	public Optional<Payment> findById(String paymentId) {
		return Optional.ofNullable(read(this.redis.opsForValue().get(PAYMENT_KEY_PREFIX + paymentId)));
	}

	@Override
	public List<Payment> findAll() {
		List<String> ids = this.redis.opsForList().range(IDS_KEY, 0, -1);
		if (CollectionUtils.isEmpty(ids)) {
			return List.of();
		}
		@Nullable List<@Nullable String> json = this.redis.opsForValue()
			.multiGet(ids.stream().map((id) -> PAYMENT_KEY_PREFIX + id).toList());
		return (json != null) ? json.stream().map(this::read).filter(Objects::nonNull).toList() : List.of();
	}

	private @Nullable Payment read(@Nullable String json) {
		return (json != null) ? this.jsonMapper.readValue(json, Payment.class) : null;
	}

}
