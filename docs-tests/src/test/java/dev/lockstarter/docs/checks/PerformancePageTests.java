package dev.lockstarter.docs.checks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/PERFORMANCE.md and its charts in docs/performance/ are what
 * {@code benchmarks/report.py} renders from the committed results in benchmarks/results,
 * byte for byte, on any machine, and the report's statistics helpers compute what their
 * tests worked out by hand: the Python tests of {@code benchmarks/report/}, run by
 * {@code python3} from the project's root.
 */
class PerformancePageTests {

	private static final Duration TIMEOUT = Duration.ofMinutes(2);

	@TempDir
	Path directory;

	@Test
	void theCommittedResultsRenderTheCommittedPerformancePage() throws Exception {
		Path log = this.directory.resolve("unittest.log");
		ProcessBuilder builder = new ProcessBuilder("python3", "-m", "unittest", "discover", "-s", "benchmarks", "-p",
				"test_*.py", "-v")
			.directory(ProjectFiles.current().root().toFile())
			.redirectErrorStream(true)
			.redirectOutput(log.toFile());
		builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
		Process tests = builder.start();
		boolean finished = tests.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
		if (!finished) {
			tests.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
		String output = Files.readString(log);
		assertThat(finished).as("python3 did not finish in %s:%n%s", TIMEOUT, output).isTrue();
		assertThat(tests.exitValue()).as(output).isZero();
		assertThat(output).contains("test_the_committed_results_render_the_committed_page")
			.contains("test_the_committed_results_draw_the_committed_charts");
	}

}
