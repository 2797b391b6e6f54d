package dev.lockstarter.sample.report;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Schedules the {@link DailyReport}, and records its skipped ticks with
 * {@link SkippedTicks}, when {@code sample.report.enabled} is {@code true}; scheduling
 * stays off otherwise, so that nothing runs in the background of the other demos.
 *
 * @since 0.1.0
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("sample.report.enabled")
@EnableScheduling
@EnableConfigurationProperties(ReportProperties.class)
public class ReportConfiguration {

	@Bean
	DailyReport dailyReport(StringRedisTemplate redis, ReportProperties properties) {
		return new DailyReport(redis, properties.getInstance());
	}

	@Bean
	SkippedTicks skippedTicks(StringRedisTemplate redis, ReportProperties properties) {
		return new SkippedTicks(redis, properties.getInstance());
	}

}
