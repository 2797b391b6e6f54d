package dev.lockstarter.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Tests for {@link ClockNemesis} and {@link ChildJvm}'s faketime settings.
 */
class ClockNemesisTests {

	@Test
	void offsetsAreWrittenAsLibfaketimeReadsThem() {
		assertThat(ClockNemesis.format(1250)).isEqualTo("+1.250s");
		assertThat(ClockNemesis.format(-20)).isEqualTo("-0.020s");
		assertThat(ClockNemesis.format(0)).isEqualTo("+0.000s");
		assertThat(ClockNemesis.format(-8000)).isEqualTo("-8.000s");
	}

	/**
	 * A child JVM's wall clock follows its offset file at once, forward and back, while
	 * its monotonic clock stays the machine's, the one the harness's timeline is on.
	 */
	@Test
	void aChildJvmsWallClockFollowsItsFileWhileItsMonotonicClockStaysTheMachines(@TempDir Path directory)
			throws Exception {
		Path file = directory.resolve("probe.faketime");
		ClockNemesis.write(file, 0);
		Process probe = ChildJvm.builder(Probe.class, List.of(), file)
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		try (BufferedReader answers = new BufferedReader(
				new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8));
				Writer questions = new OutputStreamWriter(probe.getOutputStream(), StandardCharsets.UTF_8)) {
			for (long offset : new long[] { 0, 3000, -2500, 40, -4000 }) {
				ClockNemesis.write(file, offset);
				questions.write("?\n");
				questions.flush();
				String[] clock = answers.readLine().split(" ");
				assertThat(Long.parseLong(clock[0]) - System.currentTimeMillis()).as("wall clock at offset %d", offset)
					.isCloseTo(offset, within(500L));
				assertThat(Long.parseLong(clock[1]) / 1_000_000 - Oracle.now())
					.as("monotonic clock at offset %d", offset)
					.isCloseTo(0L, within(500L));
			}
		}
		finally {
			probe.destroyForcibly();
		}
	}

	/**
	 * Answers each line on standard input with its wall clock and monotonic clock.
	 */
	static final class Probe {

		private Probe() {
		}

		public static void main(String[] args) throws IOException {
			BufferedReader questions = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			while (questions.readLine() != null) {
				System.out.println(System.currentTimeMillis() + " " + System.nanoTime());
				System.out.flush();
			}
		}

	}

}
