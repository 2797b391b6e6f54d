package dev.lockstarter.core;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link HoldTimes}. A hold is reported as acquired a set time before the
 * release; {@link HoldTimes} measures it to its own {@link System#nanoTime()}, so each
 * sample lies between the set time and the set time plus the time the reporting took,
 * which the tests measure, rather than in a window of a guessed width.
 */
class HoldTimesTests {

	/** The integer average may trail its samples by a few nanoseconds. */
	private static final Duration ROUNDING = Duration.ofNanos(1000);

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
		Duration held = Duration.ofMillis(10);
		Duration reporting = releaseHeldFor("reports", held, HoldTimes.ALWAYS_SAMPLED);
		assertThat(this.holdTimes.typical("reports")).isBetween(held, held.plus(reporting));
		// About 250 samples of the new hold time: the old one weighs (7/8)^250, nothing
		Duration longer = Duration.ofMillis(100);
		reporting = releaseHeldFor("reports", longer, 2000);
		assertThat(this.holdTimes.typical("reports")).isBetween(longer.minus(ROUNDING), longer.plus(reporting));
		assertThat(this.holdTimes.typical("other")).as("a name never released").isNull();
	}

	/**
	 * Report {@code times} holds of {@code held} each; return how long the reporting
	 * took, the most by which a sample can exceed {@code held}.
	 */
	private Duration releaseHeldFor(String name, Duration held, int times) {
		long started = System.nanoTime();
		for (int i = 0; i < times; i++) {
			this.holdTimes.released(name, System.nanoTime() - held.toNanos());
		}
		return Duration.ofNanos(System.nanoTime() - started);
	}

}
