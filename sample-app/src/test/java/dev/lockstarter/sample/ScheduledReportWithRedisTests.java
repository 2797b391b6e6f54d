package dev.lockstarter.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
		ReportRuns runs;
		try {
			instances.add(start("first"));
			instances.add(start("second"));
			Thread.sleep(OBSERVATION.toMillis());
		}
		finally {
			instances.forEach(ConfigurableApplicationContext::close);
		}
		runs = readRuns();
		assertThat(runs.violations()).as("runs by tick: %s", runs.ranBy()).isEmpty();
		assertThat(runs.ranBy()).as("ticks that ran in %s", OBSERVATION).hasSizeGreaterThanOrEqualTo(8);
		assertThat(output.getAll()).contains("Daily report of tick").doesNotContain("ERROR");
		// Both instances fired every tick: the one that did not run it skipped it quietly
		assertThat(output.getAll()).doesNotContain("LockConflictException");
	}

	@Test
	void checkerFindsATickThatRanTwiceAndATickThatDidNotRun() {
		ReportRuns runs = new ReportRuns(
				Map.of(10L, List.of("first"), 11L, List.of("first", "second"), 13L, List.of("second")));
		assertThat(runs.violations()).containsExactly("tick 11 ran 2 times, by [first, second]", "tick 12 did not run");
		assertThat(new ReportRuns(Map.of(10L, List.of("first"), 11L, List.of("second"))).violations()).isEmpty();
	}

	private static ReportRuns readRuns() {
		Map<Long, List<String>> ranBy = new LinkedHashMap<>();
		String ticks = redis.server().command("ZRANGE", DailyReport.KEY_PREFIX + "ticks", "0", "-1");
		for (String tick : Set.copyOf(Arrays.asList(ticks.split("\\s+")))) {
			if (tick.isBlank()) {
				continue;
			}
			String instances = redis.server().command("LRANGE", DailyReport.KEY_PREFIX + "ran-by:" + tick, "0", "-1");
			ranBy.put(Long.parseLong(tick),
					Arrays.stream(instances.split("\\s+")).filter((s) -> !s.isBlank()).toList());
			assertThat(redis.server().command("GET", DailyReport.KEY_PREFIX + "runs:" + tick))
				.as("INCR count of tick %s", tick)
				.isEqualTo(Integer.toString(ranBy.get(Long.parseLong(tick)).size()));
		}
		return new ReportRuns(ranBy);
	}

	private static ConfigurableApplicationContext start(String instance) {
		return new SpringApplicationBuilder(SampleApplication.class).profiles("redis")
			.run("--server.port=0", "--spring.data.redis.host=" + redis.host(),
					"--spring.data.redis.port=" + redis.port(), "--sample.report.enabled=true",
					"--sample.report.instance=" + instance, "--spring.task.scheduling.shutdown.await-termination=true",
					"--spring.task.scheduling.shutdown.await-termination-period=5s");
	}

}
