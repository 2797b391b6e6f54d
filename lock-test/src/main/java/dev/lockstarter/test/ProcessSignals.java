package dev.lockstarter.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.lockstarter.core.Internal;
import org.springframework.util.Assert;

/**
 * Suspends and resumes local server processes ({@code SIGSTOP}, {@code SIGCONT}) for
 * failure tests.
 * <p>
 * {@code kill} returns once the signal is queued, while the threads of the process may
 * still be running on another core and answer one more request. {@link #stop(Process)}
 * therefore waits until every thread of the process is stopped, as {@code /proc} shows
 * it, so that a test can rely on the server not answering from the moment the call
 * returns.
 *
 * @since 0.1.0
 */
@Internal
public final class ProcessSignals {

	private static final long STOP_DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(5);

	private ProcessSignals() {
	}

	/**
	 * Suspend a process with {@code SIGSTOP} and wait until all its threads are stopped.
	 * @param process the process
	 * @throws IllegalStateException if the signal cannot be sent, or the process is not
	 * stopped within 5 seconds
	 */
	public static void stop(Process process) {
		Assert.notNull(process, "'process' must not be null");
		send(process.pid(), "STOP");
		awaitStopped(process.pid());
	}

	/**
	 * Suspend a process that this JVM did not start, such as a daemon's, with
	 * {@code SIGSTOP} and wait until all its threads are stopped.
	 * @param process the process
	 * @throws IllegalStateException if the signal cannot be sent, or the process is not
	 * stopped within 5 seconds; a process that has ended counts as stopped
	 */
	public static void stop(ProcessHandle process) {
		Assert.notNull(process, "'process' must not be null");
		send(process.pid(), "STOP");
		awaitStopped(process.pid());
	}

	/**
	 * Resume a process suspended by {@link #stop(Process)} with {@code SIGCONT}.
	 * @param process the process
	 * @throws IllegalStateException if the signal cannot be sent
	 */
	public static void resume(Process process) {
		Assert.notNull(process, "'process' must not be null");
		send(process.pid(), "CONT");
	}

	/**
	 * Resume a process suspended by {@link #stop(ProcessHandle)} with {@code SIGCONT}.
	 * @param process the process
	 * @throws IllegalStateException if the signal cannot be sent
	 */
	public static void resume(ProcessHandle process) {
		Assert.notNull(process, "'process' must not be null");
		send(process.pid(), "CONT");
	}

	private static void send(long pid, String signal) {
		String command = "kill -" + signal + " " + pid;
		try {
			Process kill = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
			if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
				throw new IllegalStateException("'" + command + "' failed: " + output);
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run '" + command + "': " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running '" + command + "'", ex);
		}
	}

	private static void awaitStopped(long pid) {
		Path tasks = Path.of("/proc", Long.toString(pid), "task");
		if (!Files.isDirectory(tasks)) {
			return; // No procfs: nothing to wait on
		}
		long deadline = System.nanoTime() + STOP_DEADLINE_NANOS;
		while (!allStopped(tasks)) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("Process " + pid + " was not stopped within 5 seconds of SIGSTOP");
			}
			Thread.onSpinWait();
		}
	}

	private static boolean allStopped(Path tasks) {
		try (Stream<Path> threads = Files.list(tasks)) {
			List<Path> stats = threads.map((thread) -> thread.resolve("stat")).toList();
			for (Path stat : stats) {
				String line = Files.readString(stat, StandardCharsets.ISO_8859_1);
				// "pid (comm) S ...": the state follows the last ')', as comm may hold
				// any character
				int end = line.lastIndexOf(')');
				char state = (end >= 0 && end + 2 < line.length()) ? line.charAt(end + 2) : '?';
				if (!runsNoMore(state)) {
					return false;
				}
			}
			return true;
		}
		catch (IOException ex) {
			// A thread ended while being read, or the process is gone: look again
			return !Files.isDirectory(tasks);
		}
	}

	/**
	 * Whether a thread in this state answers nothing more: stopped, or ended. A process
	 * that ends after its parent was stopped (a PostgreSQL backend whose client went away
	 * while the postmaster is paused) stays a zombie until the parent resumes, and never
	 * shows as stopped.
	 */
	private static boolean runsNoMore(char state) {
		return state == 'T' || state == 't' || state == 'Z' || state == 'X' || state == 'x';
	}

}
