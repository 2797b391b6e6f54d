package dev.lockstarter.sample.counter;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Counters in Redis, as plain strings under {@code sample:counters:{name}}, read with
 * {@code GET} and written with {@code SET}, so that instances share them.
 *
 * @since 0.1.0
 */
public class RedisCounterRepository implements CounterRepository {

	private static final String KEY_PREFIX = "sample:counters:";

	private final StringRedisTemplate redis;

	/**
	 * Create a new repository.
	 * @param redis the Redis template
	 */
	public RedisCounterRepository(StringRedisTemplate redis) {
		this.redis = redis;
	}

	@Override
	public long read(String name) {
		String value = this.redis.opsForValue().get(KEY_PREFIX + name);
		return (value != null) ? Long.parseLong(value) : 0L;
	}

	@Override
	public void write(String name, long value) {
		this.redis.opsForValue().set(KEY_PREFIX + name, Long.toString(value));
	}

}
