package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for the duration of the long form, {@link ReliabilityHarness#parseDuration}.
 */
class ReliabilityHarnessDurationTests {

	@Test
	void durationIsReadInSecondsMinutesHoursOrIso() {
		assertThat(ReliabilityHarness.parseDuration("300s")).isEqualTo(Duration.ofSeconds(300));
		assertThat(ReliabilityHarness.parseDuration("10m")).isEqualTo(Duration.ofMinutes(10));
		assertThat(ReliabilityHarness.parseDuration(" 1h ")).isEqualTo(Duration.ofHours(1));
		assertThat(ReliabilityHarness.parseDuration("PT5M")).isEqualTo(Duration.ofMinutes(5));
	}

	@Test
	void badDurationIsRejectedWithTheNameOfTheProperty() {
		assertThatIllegalArgumentException().isThrownBy(() -> ReliabilityHarness.parseDuration("ten minutes"))
			.withMessageContaining("reliability.duration")
			.withMessageContaining("ten minutes");
		assertThatIllegalArgumentException().isThrownBy(() -> ReliabilityHarness.parseDuration("0m"))
			.withMessageContaining("reliability.duration");
	}

	@Test
	void longFormGivesMostOfTheTimeToThisStartersLockOnEveryStoreAndTheRestToHttpPathsAndBrokenLocks() {
		List<Scenario> scenarios = ReliabilityHarness.scenarios(Duration.ofMinutes(20));
		assertThat(scenarios).filteredOn((scenario) -> Worker.OURS.equals(scenario.store()))
			.extracting(Scenario::backend)
			.containsExactlyInAnyOrder(Backend.values());
		assertThat(scenarios).filteredOn((scenario) -> Worker.OURS_DETACHED.equals(scenario.store()))
			.extracting(Scenario::backend)
			.containsExactly(Backend.MEMCACHED, Backend.DYNAMODB, Backend.ETCD, Backend.ZOOKEEPER);
		assertThat(scenarios).filteredOn(Scenario::isOurs)
			.extracting(Scenario::duration)
			.containsOnly(Duration.ofMinutes(20)
				.multipliedBy(7)
				.dividedBy(10)
				.dividedBy(Backend.values().length + ReliabilityHarness.DETACHED_BACKENDS.size()));
		assertThat(scenarios).filteredOn((scenario) -> !scenario.isOurs())
			.extracting(Scenario::duration)
			.hasSize(6)
			.containsOnly(Duration.ofSeconds(36));
		assertThat(ReliabilityHarness.httpScenarios(Duration.ofMinutes(20))).extracting(HttpScenario::duration)
			.hasSize(3)
			.containsOnly(Duration.ofMinutes(1));
		assertThat(ReliabilityHarness.httpScenarios(Duration.ofMinutes(20)))
			.filteredOn((http) -> http.store() == HttpScenario.Store.POSTGRES)
			.extracting(HttpScenario::transactional)
			.containsExactlyInAnyOrder(true, false);
		assertThat(ReliabilityHarness.scenarios(null)).filteredOn(Scenario::isOurs)
			.allSatisfy(
					(ours) -> assertThat(ours.pauses() && ours.kills() && ours.restarts() && ours.clocks()).isTrue());
		assertThat(ReliabilityHarness.scenarios(null))
			.filteredOn((scenario) -> Worker.OURS_DETACHED.equals(scenario.store()))
			.allSatisfy((detached) -> assertThat(detached.duration())
				.isEqualTo(Duration.ofSeconds(ReliabilityHarness.SHORT_DETACHED_SECONDS.get(detached.backend())))
				.isLessThanOrEqualTo(Duration.ofSeconds(ReliabilityHarness.SHORT_SECONDS.get(detached.backend()))));
		assertThat(ReliabilityHarness.scenarios(null)).filteredOn((scenario) -> !scenario.isOurs())
			.filteredOn(Scenario::clocks)
			.singleElement()
			.satisfies((control) -> {
				assertThat(control.store()).isEqualTo(BrokenLockStore.Flaw.WALL_CLOCK_EXPIRY.name());
				assertThat(control.pauses() || control.kills() || control.restarts()).isFalse();
			});
	}

}
