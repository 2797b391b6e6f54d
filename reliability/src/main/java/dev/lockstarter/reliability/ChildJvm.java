package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * How the harness starts a child JVM (a {@link Worker}, or an instance of a test) on its
 * own classpath: a small heap, the serial collector, the client compiler; and, for the
 * clock nemesis, with libfaketime preloaded so that the JVM's wall clock follows an
 * offset written into a file while it runs ({@link ClockNemesis}).
 * <p>
 * The faketime settings keep {@link System#nanoTime()} the machine's real monotonic clock
 * ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}, as NTP stepping a clock would leave it) and
 * the JVM from spinning in its timed waits ({@code FAKETIME_FORCE_MONOTONIC_FIX=0}); the
 * file is read again at every call ({@code FAKETIME_NO_CACHE=1}), so that a new offset
 * takes effect at once. {@code System.currentTimeMillis()}, {@code Instant.now()} and
 * every library's wall clock follow the offset.
 */
final class ChildJvm {

	/** Debian's libfaketime (package {@code faketime}). */
	static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

	private ChildJvm() {
	}

	/**
	 * A process builder for a child JVM.
	 * @param mainClass the class whose {@code main} to run
	 * @param args its arguments
	 * @param clockFile the faketime offset file of the child's wall clock, or
	 * {@code null} to leave its clock alone
	 * @return the builder, its streams not redirected yet
	 */
	static ProcessBuilder builder(Class<?> mainClass, List<String> args, @Nullable Path clockFile) {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
				"-cp", System.getProperty("java.class.path"), mainClass.getName()));
		command.addAll(args);
		ProcessBuilder builder = new ProcessBuilder(command);
		if (clockFile != null) {
			builder.environment().putAll(faketime(clockFile));
		}
		return builder;
	}

	/**
	 * The environment that makes a process's wall clock follow the offset in a file.
	 * @param clockFile the file, holding an offset such as {@code +1.250s} or {@code -8s}
	 * @return the environment variables
	 */
	static Map<String, String> faketime(Path clockFile) {
		if (!Files.isReadable(LIBFAKETIME)) {
			throw new IllegalStateException(LIBFAKETIME + " not found: the clock nemesis needs Debian's faketime "
					+ "package (apt-get install faketime)");
		}
		return Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME_TIMESTAMP_FILE",
				clockFile.toAbsolutePath().toString(), "FAKETIME_NO_CACHE", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1",
				"FAKETIME_FORCE_MONOTONIC_FIX", "0");
	}

	/**
	 * Start a child JVM whose output goes to a log file, and wait until it prints
	 * {@link Worker#READY}.
	 * @param builder the child's builder, see {@link #builder}
	 * @param log where its standard output and error go
	 * @param name its name, for errors
	 * @return the ready process
	 * @throws IllegalStateException if it exits or is not ready within 60 s
	 */
	static Process startAndAwaitReady(ProcessBuilder builder, Path log, String name) {
		Process process;
		try {
			process = builder.redirectErrorStream(true).redirectOutput(log.toFile()).start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start " + name, ex);
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (!output(log).contains(Worker.READY)) {
			if (!process.isAlive() || System.nanoTime() - deadline > 0) {
				process.destroyForcibly();
				throw new IllegalStateException(name + " did not start. Output:\n" + output(log));
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				process.destroyForcibly();
				throw new IllegalStateException("Interrupted while starting " + name, ex);
			}
		}
		return process;
	}

	static String output(Path log) {
		try {
			return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
		}
		catch (IOException ex) {
			return "";
		}
	}

}
