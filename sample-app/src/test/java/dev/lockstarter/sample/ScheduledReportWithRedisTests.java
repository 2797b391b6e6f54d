package dev.lockstarter.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.sample.report.DailyReport;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of the sample app with the {@code redis} profile and the scheduled report
 * on, sharing one real Redis server: every second both fire the report's tick, and each
 * tick runs on exactly one of them, without an error in the log.
 */
@ExtendWith(OutputCaptureExtension.class)
class ScheduledReportWithRedisTests {

	private static final Duration OBSERVATION = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void eachTickRunsExactlyOnceAcrossTwoInstancesAndNothingIsLoggedAsAnError(CapturedOutput output) throws Exception {
		List<ConfigurableApplicationContext> instances = new ArrayList<>();
		try {
			instances.add(start("first"));
			instances.add(start("second"));
			Thread.sleep(OBSERVATION.toMillis());
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
		ReportRuns runs = readRuns();
		assertThat(runs.violations()).as("runs by tick: %s, skips by tick: %s", runs.ranBy(), runs.skippedBy())
			.isEmpty();
		assertThat(runs.ranBy()).as("ticks that ran in %s", OBSERVATION).hasSizeGreaterThanOrEqualTo(8);
		// Both instances fired the ticks: the one that lost skipped them
		assertThat(runs.skippedBy()).as("ticks skipped by an instance").hasSizeGreaterThanOrEqualTo(5);
		// A tick that no instance fired only shows both schedulers held up on a busy
		// machine; more than one in 10 s would be suspicious
		assertThat(runs.unfired()).as("ticks that no instance fired").hasSizeLessThanOrEqualTo(1);
		assertThat(output.getAll()).contains("Daily report of tick")
			.doesNotContain("ERROR")
			.doesNotContain("LockConflictException");
	}

	@Test
	void checkerFindsATickThatRanTwiceAndATickThatEveryInstanceSkipped() {
		ReportRuns runs = new ReportRuns(
				Map.of(10L, List.of("first"), 11L, List.of("first", "second"), 14L, List.of("second")),
				Map.of(10L, List.of("second"), 12L, List.of("first", "second")));
		assertThat(runs.violations()).containsExactly("tick 11 ran 2 times, by [first, second]",
				"tick 12 did not run: skipped by [first, second]");
		assertThat(runs.unfired()).containsExactly(13L);
		ReportRuns once = new ReportRuns(Map.of(10L, List.of("first"), 11L, List.of("second")),
				Map.of(10L, List.of("second"), 11L, List.of("first")));
		assertThat(once.violations()).isEmpty();
		assertThat(once.unfired()).isEmpty();
	}

	private static ReportRuns readRuns() {
		Map<Long, List<String>> ranBy = new LinkedHashMap<>();
		for (String tick : list(redis.server().command("ZRANGE", DailyReport.KEY_PREFIX + "ticks", "0", "-1"))) {
			List<String> instances = list(
					redis.server().command("LRANGE", DailyReport.KEY_PREFIX + "ran-by:" + tick, "0", "-1"));
			ranBy.put(Long.parseLong(tick), instances);
			assertThat(redis.server().command("GET", DailyReport.KEY_PREFIX + "runs:" + tick))
				.as("INCR count of tick %s", tick)
				.isEqualTo(Integer.toString(instances.size()));
		}
		Map<Long, List<String>> skippedBy = new LinkedHashMap<>();
		for (String key : list(redis.server().command("KEYS", DailyReport.KEY_PREFIX + "skipped-by:*"))) {
			long tick = Long.parseLong(key.substring(key.lastIndexOf(':') + 1));
			skippedBy.put(tick, list(redis.server().command("LRANGE", key, "0", "-1")));
		}
		return new ReportRuns(ranBy, skippedBy);
	}

	private static List<String> list(@Nullable String reply) {
		return (reply != null) ? reply.lines().filter((line) -> !line.isBlank()).toList() : List.of();
	}

	private static ConfigurableApplicationContext start(String instance) {
		return new SpringApplicationBuilder(SampleApplication.class).profiles("redis")
			.run("--server.port=0", "--spring.data.redis.host=" + redis.host(),
					"--spring.data.redis.port=" + redis.port(), "--sample.report.enabled=true",
					"--sample.report.instance=" + instance, "--spring.task.scheduling.shutdown.await-termination=true",
					"--spring.task.scheduling.shutdown.await-termination-period=5s");
	}

}
