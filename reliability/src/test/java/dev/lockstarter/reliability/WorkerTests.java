package dev.lockstarter.reliability;

import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the workload of {@link Worker}.
 */
class WorkerTests {

	@Test
	void sectionsAreShortButForARareOneThatOutlivesSeveralTimeToLives() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		int draws = Worker.LONG_SECTION_EVERY * 200;
		int longOnes = 0;
		for (int i = 0; i < draws; i++) {
			long sleep = Worker.sleepInside(random, 10, 1000, Worker.LONG_SECTION_EVERY);
			if (sleep > 10) {
				assertThat(sleep).isBetween(2000L, 2999L);
				longOnes++;
			}
			else {
				assertThat(sleep).isBetween(1L, 10L);
			}
		}
		// 200 expected; far outside this range only if the rate is wrong
		assertThat(longOnes).isBetween(120, 300);
	}

}
