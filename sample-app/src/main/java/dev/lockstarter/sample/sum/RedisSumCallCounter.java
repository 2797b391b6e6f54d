package dev.lockstarter.sample.sum;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Counts runs in Redis under {@code sample:sum:calls}, with {@code INCR}, so that every
 * instance counts into one total.
 *
 * @since 0.1.0
 */
public class RedisSumCallCounter implements SumCallCounter {

	private static final String KEY = "sample:sum:calls";

	private final StringRedisTemplate redis;

	/**
	 * Create a new counter.
	 * @param redis the Redis template
	 */
	public RedisSumCallCounter(StringRedisTemplate redis) {
		this.redis = redis;
	}

	@Override
	public void increment() {
		this.redis.opsForValue().increment(KEY);
	}

	@Override
	public long count() {
		String value = this.redis.opsForValue().get(KEY);
		return (value != null) ? Long.parseLong(value) : 0L;
	}

}
