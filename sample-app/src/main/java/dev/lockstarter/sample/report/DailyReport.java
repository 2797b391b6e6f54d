package dev.lockstarter.sample.report;

import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.annotation.ExclusiveJob;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The "daily report", sent every second for the demo: every instance fires each tick, and
 * {@code @ExclusiveJob} lets one of them send it. Each run is recorded in Redis under its
 * tick, the second it was scheduled for:
 * <ul>
 * <li>{@code sample:report:runs:{tick}}: the number of runs of the tick (INCR), which
 * should be 1;</li>
 * <li>{@code sample:report:ran-by:{tick}}: the instances that ran it, in order;</li>
 * <li>{@code sample:report:ticks}: a sorted set of the ticks that ran.</li>
 * </ul>
 * {@link SkippedTicks} records the instances that skipped each tick. No
 * {@code holdAtLeast}: it is half the schedule's period, 500 ms, so that an instance
 * whose tick fires up to half a second after the winner's still skips it.
 *
 * @since 0.1.0
 */
public class DailyReport {

	/** Key prefix of the report's records. */
	public static final String KEY_PREFIX = "sample:report:";

	/** How long the records are kept. */
	private static final Duration RETENTION = Duration.ofDays(1);

	/** A tick that fires this early still counts as its own second. */
	private static final long EARLY_MILLIS = 100;

	/** The report's job name, its lock name. */
	public static final String NAME = "daily-report";

	private static final Log logger = LogFactory.getLog(DailyReport.class);

	private final StringRedisTemplate redis;

	private final String instance;

	DailyReport(StringRedisTemplate redis, String instance) {
		this.redis = redis;
		this.instance = instance;
	}

	/**
	 * Send the report of this tick, on the one instance that took the job's lock.
	 */
	@Scheduled(cron = "${sample.report.cron:* * * * * *}")
	@ExclusiveJob(name = NAME)
	public void send() {
		long tick = currentTick();
		String runs = KEY_PREFIX + "runs:" + tick;
		String ranBy = KEY_PREFIX + "ran-by:" + tick;
		this.redis.opsForValue().increment(runs);
		this.redis.opsForList().rightPush(ranBy, this.instance);
		this.redis.opsForZSet().add(KEY_PREFIX + "ticks", Long.toString(tick), tick);
		for (String key : List.of(runs, ranBy)) {
			this.redis.expire(key, RETENTION);
		}
		logger.info("Daily report of tick " + tick + " sent by instance " + this.instance);
	}

	/**
	 * Return the tick being fired now: the current second, or the next one if it begins
	 * within 100 ms.
	 * @return the tick, in seconds since the epoch
	 */
	static long currentTick() {
		return (System.currentTimeMillis() + EARLY_MILLIS) / 1000;
	}

}
