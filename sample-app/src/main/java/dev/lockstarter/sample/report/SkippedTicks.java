package dev.lockstarter.sample.report;

import java.time.Duration;

import dev.lockstarter.interceptor.ExclusiveJobListener;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Records in Redis which instances skipped each tick of the {@link DailyReport}, under
 * {@code sample:report:skipped-by:{tick}}, so that the record shows every instance firing
 * every tick and one of them running it. An {@link ExclusiveJobListener} bean is told
 * about every tick of every {@code @ExclusiveJob} method.
 *
 * @since 0.1.0
 */
class SkippedTicks implements ExclusiveJobListener {

	private static final Duration RETENTION = Duration.ofDays(1);

	private final StringRedisTemplate redis;

	private final String instance;

	SkippedTicks(StringRedisTemplate redis, String instance) {
		this.redis = redis;
		this.instance = instance;
	}

	@Override
	public void tickFinished(String name, Outcome outcome) {
		if (DailyReport.NAME.equals(name) && outcome == Outcome.SKIPPED) {
			String key = DailyReport.KEY_PREFIX + "skipped-by:" + DailyReport.currentTick();
			this.redis.opsForList().rightPush(key, this.instance);
			this.redis.expire(key, RETENTION);
		}
	}

}
