package dev.lockstarter.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * One start of a {@link ServerProcess}: the definition's command run in the working
 * directory, with its output appended to the log file, until the server answers the
 * readiness probe, exits or runs out of time.
 */
final class ServerLaunch {

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration POLL_INTERVAL = Duration.ofMillis(10);

	private final ServerProcess.Definition definition;

	private final Path directory;

	private final Path log;

	private final int port;

	ServerLaunch(ServerProcess.Definition definition, Path directory, Path log, int port) {
		this.definition = definition;
		this.directory = directory;
		this.log = log;
		this.port = port;
	}

	/**
	 * Run the command and wait until the server answers its readiness probe.
	 * @return the running process
	 * @throws PortTakenException if another process took the port
	 * @throws IllegalStateException if the server exits or does not answer in time
	 */
	Process start() {
		String name = this.definition.name();
		List<String> command;
		try {
			command = List.copyOf(this.definition.command(this.directory, this.port));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not prepare " + name + " in " + this.directory, ex);
		}
		long logOffset = logSize();
		Process process;
		try {
			process = new ProcessBuilder(command).directory(this.directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run " + command.get(0) + ": " + ex.getMessage(), ex);
		}
		try {
			awaitReady(process, command, logOffset);
		}
		catch (RuntimeException ex) {
			process.destroyForcibly();
			throw ex;
		}
		return process;
	}

	private void awaitReady(Process process, List<String> command, long logOffset) {
		String name = this.definition.name();
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (true) {
			if (!process.isAlive()) {
				String output = output(logOffset);
				if (this.definition.isPortTaken(output)) {
					throw new ServerProcess.PortTakenException();
				}
				throw new IllegalStateException(
						name + " exited with code " + process.exitValue() + " before accepting connections on port "
								+ this.port + ". Command: " + String.join(" ", command) + "\nOutput:\n" + output);
			}
			try {
				if (this.definition.probe(process, this.port)) {
					return;
				}
			}
			catch (IOException ex) {
				// Not listening yet
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(name + " did not answer on " + this.definition.host() + ":" + this.port
						+ " within " + STARTUP_TIMEOUT.toSeconds() + " s. Output:\n" + output(logOffset));
			}
			try {
				Thread.sleep(POLL_INTERVAL.toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + name + " to start", ex);
			}
		}
	}

	private long logSize() {
		try {
			return Files.exists(this.log) ? Files.size(this.log) : 0;
		}
		catch (IOException ex) {
			return 0;
		}
	}

	private String output(long offset) {
		try {
			byte[] bytes = Files.readAllBytes(this.log);
			int from = (int) Math.min(bytes.length, offset);
			return new String(Arrays.copyOfRange(bytes, from, bytes.length), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(no output: " + ex.getMessage() + ")";
		}
	}

}
