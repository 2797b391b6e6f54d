package dev.lockstarter.test.memcached;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerBackend;
import dev.lockstarter.test.ServerContainer;
import dev.lockstarter.test.ServerProcess;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * A real Memcached server for tests, listening on loopback only, with 64 MB of memory and
 * no UDP.
 * <p>
 * {@link #start()} runs a {@code memcached} binary found on the {@code PATH} (or named by
 * the {@value #BINARY_PROPERTY} system property) as a child process on a free port, and
 * waits until it answers {@code version}. Without a binary, and when Testcontainers is on
 * the classpath and a Docker engine is available, it runs the {@value #IMAGE} image
 * instead. Otherwise it fails and says what to install.
 * <p>
 * A local server can be {@linkplain #pause() paused} and {@linkplain #resume() resumed}
 * ({@code SIGSTOP}/{@code SIGCONT}) to simulate a server that stops answering, and
 * {@linkplain #stop() stopped} and {@linkplain #restart() restarted} on the same port to
 * simulate a server restart; Memcached keeps nothing on disk, so a restarted server
 * starts empty. A server in a container offers none of these.
 * <p>
 * {@link #close()} ends the server. Servers that are still running when the JVM exits are
 * killed by a shutdown hook; a JVM that is itself killed with {@code SIGKILL} cannot
 * clean up, and its servers keep running.
 *
 * <pre class="code">
 * try (MemcachedServer memcached = MemcachedServer.start()) {
 *     MemcachedLockStore store = MemcachedLockStore.create(List.of(memcached.socketAddress()), ...);
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see MemcachedServerExtension
 */
public final class MemcachedServer implements AutoCloseable {

	/**
	 * System property naming the {@code memcached} binary to run, instead of the
	 * {@code PATH}.
	 */
	public static final String BINARY_PROPERTY = "lockstarter.test.memcached";

	/** The container image used when no {@code memcached} binary is found. */
	public static final String IMAGE = "memcached:1.6";

	private static final boolean testcontainersPresent = ClassUtils.isPresent("org.testcontainers.DockerClientFactory",
			MemcachedServer.class.getClassLoader());

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	/** The port the server listens on in its container. */
	private static final int MEMCACHED_PORT = 11211;

	private final ServerBackend backend;

	private MemcachedServer(ServerBackend backend) {
		this.backend = backend;
	}

	/**
	 * Start a server with the default settings.
	 * @return the running server
	 * @throws IllegalStateException if no server can be started
	 */
	public static MemcachedServer start() {
		return start(new String[0]);
	}

	/**
	 * Start a server with additional {@code memcached} arguments, for example
	 * {@code "-M"} to answer errors instead of evicting items when memory is full.
	 * @param extraArgs arguments appended to the command line
	 * @return the running server
	 * @throws IllegalStateException if no server can be started
	 */
	public static MemcachedServer start(String... extraArgs) {
		Assert.notNull(extraArgs, "'extraArgs' must not be null");
		Assert.noNullElements(extraArgs, "'extraArgs' must not contain null elements");
		Path binary = findBinary();
		if (binary != null) {
			return startLocal(binary, ServerProcess::freePort, extraArgs);
		}
		if (testcontainersPresent && ServerContainer.isDockerAvailable()) {
			List<String> command = new ArrayList<>(List.of("memcached", "-U", "0", "-m", "64"));
			command.addAll(List.of(extraArgs));
			return new MemcachedServer(ServerContainer.start(IMAGE, MEMCACHED_PORT, command, null, "a Memcached server",
					"memcached (for example 'apt-get install memcached')"));
		}
		throw new IllegalStateException("Cannot start a Memcached server for tests: no 'memcached' binary on the PATH"
				+ (testcontainersPresent ? " and no Docker engine available"
						: " and Testcontainers is not on the classpath")
				+ ". Install Memcached, for example with 'apt-get install memcached' (Debian/Ubuntu) or "
				+ "'brew install memcached' (macOS), or name the binary with -D" + BINARY_PROPERTY
				+ "=/path/to/memcached");
	}

	static MemcachedServer startLocal(Path binary, IntSupplier ports, String... extraArgs) {
		return new MemcachedServer(ServerProcess.start(new Definition(binary, List.of(extraArgs)), ports));
	}

	/**
	 * Return the host the server listens on.
	 * @return the host, {@code 127.0.0.1} for a local server
	 */
	public String host() {
		return this.backend.host();
	}

	/**
	 * Return the port the server listens on.
	 * @return the port
	 */
	public int port() {
		return this.backend.port();
	}

	/**
	 * Return the server's address as {@code host:port}, for the
	 * {@code lock.memcached.servers} property.
	 * @return the address
	 */
	public String address() {
		return host() + ":" + port();
	}

	/**
	 * Return the server's socket address, for a Memcached client.
	 * @return the address
	 */
	public InetSocketAddress socketAddress() {
		return new InetSocketAddress(host(), port());
	}

	/**
	 * Send one text protocol command over a fresh connection and return the reply lines,
	 * for administrative commands such as {@code stats}, {@code flush_all} or
	 * {@code version}.
	 * @param command the command line, without line breaks
	 * @return the reply lines, up to and including the line that ends the reply
	 * @throws UncheckedIOException if the server cannot be reached or does not answer
	 * within 5 seconds
	 */
	public List<String> command(String command) {
		Assert.hasText(command, "'command' must not be empty");
		try {
			return MemcachedText.send(host(), port(), COMMAND_TIMEOUT, command);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(
					"Memcached at " + address() + " did not answer '" + command + "': " + ex.getMessage(), ex);
		}
	}

	/**
	 * Return the server's statistics ({@code stats}), such as {@code curr_items} or
	 * {@code cmd_flush}.
	 * @return the values by name
	 * @throws UncheckedIOException if the server cannot be reached or does not answer
	 * within 5 seconds
	 */
	public Map<String, String> stats() {
		try {
			return MemcachedText.stats(host(), port(), COMMAND_TIMEOUT);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Memcached at " + address() + " did not answer 'stats': " + ex.getMessage(),
					ex);
		}
	}

	/**
	 * Suspend the server process ({@code SIGSTOP}): connections stay open but nothing is
	 * answered until {@link #resume()}.
	 * @throws UnsupportedOperationException if the server runs in a container
	 * @throws IllegalStateException if the server is not running
	 */
	public void pause() {
		this.backend.pause();
	}

	/**
	 * Resume a {@linkplain #pause() paused} server ({@code SIGCONT}). Does nothing if the
	 * server is not paused.
	 * @throws UnsupportedOperationException if the server runs in a container
	 */
	public void resume() {
		this.backend.resume();
	}

	/**
	 * Kill the server ({@code SIGKILL}), keeping its port for {@link #restart()}.
	 * Connections are closed and the data is lost. Does nothing if the server is already
	 * stopped.
	 * @throws UnsupportedOperationException if the server runs in a container
	 */
	public void stop() {
		this.backend.stop();
	}

	/**
	 * Start the server again on the same port, stopping it first if it runs. The
	 * restarted server is empty.
	 * @throws UnsupportedOperationException if the server runs in a container
	 * @throws IllegalStateException if the server cannot be started again, for example
	 * because another process took its port
	 */
	public void restart() {
		this.backend.restart();
	}

	/**
	 * End the server. Calling it again does nothing.
	 */
	@Override
	public void close() {
		this.backend.close();
	}

	@Override
	public String toString() {
		return "MemcachedServer[" + this.backend + "]";
	}

	static @Nullable Path findBinary() {
		String configured = System.getProperty(BINARY_PROPERTY);
		if (StringUtils.hasText(configured)) {
			Path binary = Path.of(configured.strip());
			Assert.state(Files.isExecutable(binary),
					() -> "-D" + BINARY_PROPERTY + " names '" + binary + "', which is not an executable file");
			return binary;
		}
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String directory : path.split(File.pathSeparator)) {
			if (StringUtils.hasText(directory)) {
				Path candidate = Path.of(directory, "memcached");
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		return null;
	}

	/**
	 * How to run {@code memcached} and tell that it is ready.
	 */
	private record Definition(Path binary, List<String> extraArgs) implements ServerProcess.Definition {

		@Override
		public String name() {
			return "memcached";
		}

		@Override
		public List<String> command(Path directory, int port) {
			// -u only matters when run as root, which memcached refuses without it
			List<String> command = new ArrayList<>(List.of(this.binary.toString(), "-p", Integer.toString(port), "-l",
					ServerProcess.HOST, "-U", "0", "-m", "64", "-u", System.getProperty("user.name", "root")));
			command.addAll(this.extraArgs);
			return command;
		}

		@Override
		public boolean probe(Process process, int port) throws IOException {
			String pid = MemcachedText.stats(ServerProcess.HOST, port, Duration.ofMillis(200)).get("pid");
			if (Long.toString(process.pid()).equals(pid)) {
				return true;
			}
			// Someone else's server answered on our port: ours cannot bind it
			throw new ServerProcess.PortTakenException();
		}

		@Override
		public Duration shutdownGracePeriod() {
			// Memcached has nothing to save, and takes most of a second on SIGTERM
			return Duration.ZERO;
		}

	}

}
