package dev.lockstarter.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HoldTimesTests {

	private final HoldTimes holdTimes = new HoldTimes();

	@Test
	void theFirstHoldsOfANameAreAllSampledThenAboutOneInEight() {
		releaseHeldFor("users", Duration.ofMillis(5), HoldTimes.ALWAYS_SAMPLED);
		assertThat(this.holdTimes.samples("users")).isEqualTo(HoldTimes.ALWAYS_SAMPLED);
		releaseHeldFor("users", Duration.ofMillis(5), 800);
		// 100 expected; the binomial standard deviation is 9.4
		assertThat(this.holdTimes.samples("users") - HoldTimes.ALWAYS_SAMPLED).isBetween(50, 150);
	}

	@Test
	void theAverageFollowsAChangeOfTheWorkAfterSampling() {
		releaseHeldFor("reports", Duration.ofMillis(10), HoldTimes.ALWAYS_SAMPLED);
		assertThat(this.holdTimes.typical("reports")).isBetween(Duration.ofMillis(10), Duration.ofMillis(11));
		// About 250 samples of the new hold time: the old one weighs (7/8)^250, nothing
		releaseHeldFor("reports", Duration.ofMillis(100), 2000);
		assertThat(this.holdTimes.typical("reports")).isBetween(Duration.ofMillis(99), Duration.ofMillis(102));
		assertThat(this.holdTimes.typical("other")).as("a name never released").isNull();
	}

	private void releaseHeldFor(String name, Duration held, int times) {
		for (int i = 0; i < times; i++) {
			this.holdTimes.released(name, System.nanoTime() - held.toNanos());
		}
	}

}
