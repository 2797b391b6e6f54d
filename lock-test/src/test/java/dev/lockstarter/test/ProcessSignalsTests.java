package dev.lockstarter.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ProcessSignals}, on real processes.
 */
class ProcessSignalsTests {

	private Process process;

	@AfterEach
	void end() {
		if (this.process != null) {
			this.process.destroyForcibly();
		}
	}

	@Test
	void stopReturnsOnceTheProcessIsStoppedAndResumeLetsItRunAgain() throws IOException {
		this.process = new ProcessBuilder("sleep", "30").start();
		ProcessSignals.stop(this.process);
		assertThat(state(this.process.pid())).isEqualTo('T');
		ProcessSignals.resume(this.process);
		await().atMost(Duration.ofSeconds(5)).until(() -> state(this.process.pid()) == 'S');
	}

	@Test
	void aProcessThatEndedWhileItsParentDoesNotReapItCountsAsStopped() throws IOException {
		// The shell's child ends at once; the shell, replaced by sleep, never reaps it
		this.process = new ProcessBuilder("sh", "-c", "sleep 0 & exec sleep 30").start();
		ProcessHandle child = await().atMost(Duration.ofSeconds(5))
			.until(() -> this.process.toHandle().children().findFirst(), Optional::isPresent)
			.orElseThrow();
		await().atMost(Duration.ofSeconds(5)).until(() -> state(child.pid()) == 'Z');
		long started = System.nanoTime();
		ProcessSignals.stop(child);
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
	}

	private static char state(long pid) throws IOException {
		String line = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.ISO_8859_1);
		return line.charAt(line.lastIndexOf(')') + 2);
	}

}
