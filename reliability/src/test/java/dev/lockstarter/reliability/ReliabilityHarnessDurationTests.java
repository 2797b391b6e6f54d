package dev.lockstarter.reliability;

import java.time.Duration;

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
	void longFormGivesMostOfTheTimeToThisStartersLock() {
		assertThat(ReliabilityHarness.scenarios(Duration.ofMinutes(10))).extracting(Scenario::duration)
			.containsExactly(Duration.ofMinutes(7), Duration.ofMinutes(1), Duration.ofMinutes(1),
					Duration.ofMinutes(1));
		assertThat(ReliabilityHarness.scenarios(null)).filteredOn(Scenario::isOurs)
			.singleElement()
			.satisfies((ours) -> assertThat(ours.pauses() && ours.kills() && ours.restarts()).isTrue());
	}

}
