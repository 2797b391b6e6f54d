package dev.lockstarter.test.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

import javax.net.SocketFactory;
import javax.net.ssl.SSLSocketFactory;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerBackend;
import dev.lockstarter.test.ServerContainer;
import dev.lockstarter.test.ServerProcess;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * A real Redis server for tests, with no persistence, listening on loopback only.
 * <p>
 * {@link #start()} runs a {@code redis-server} binary found on the {@code PATH} (or named
 * by the {@value #BINARY_PROPERTY} system property) as a child process on a free port, in
 * a temporary working directory, and waits until it answers {@code PING}. Without a
 * binary, and when Testcontainers is on the classpath and a Docker engine is available,
 * it runs the {@value #IMAGE} image instead. Otherwise it fails and says what to install.
 * <p>
 * A local server can be {@linkplain #pause() paused} and {@linkplain #resume() resumed}
 * ({@code SIGSTOP}/{@code SIGCONT}) to simulate a server that stops answering, and
 * {@linkplain #stop() stopped} (or {@linkplain #kill() killed}) and
 * {@linkplain #restart() restarted} on the same port to simulate a server restart (or a
 * crash); a restarted server starts empty. A server in a container offers none of these.
 * <p>
 * {@link #startWithTls(RedisTls, String...)} starts a local server that accepts TLS
 * connections only.
 * <p>
 * {@link #close()} ends the server and deletes its directory. Servers that are still
 * running when the JVM exits are killed by a shutdown hook; a JVM that is itself killed
 * with {@code SIGKILL} cannot clean up, and its servers keep running.
 *
 * <pre class="code">
 * try (RedisServer redis = RedisServer.start()) {
 *     LettuceConnectionFactory factory = new LettuceConnectionFactory(redis.host(), redis.port());
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see RedisServerExtension
 */
public final class RedisServer implements AutoCloseable {

	/**
	 * System property naming the {@code redis-server} binary to run, instead of the
	 * {@code PATH}.
	 */
	public static final String BINARY_PROPERTY = "lockstarter.test.redis-server";

	/** The container image used when no {@code redis-server} binary is found. */
	public static final String IMAGE = "redis:7";

	private static final boolean testcontainersPresent = ClassUtils.isPresent("org.testcontainers.DockerClientFactory",
			RedisServer.class.getClassLoader());

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	/** The port the server listens on in its container. */
	private static final int REDIS_PORT = 6379;

	private final ServerBackend backend;

	private final @Nullable RedisTls tls;

	private RedisServer(ServerBackend backend, @Nullable RedisTls tls) {
		this.backend = backend;
		this.tls = tls;
	}

	/**
	 * Start a server with the default settings.
	 * @return the running server
	 * @throws IllegalStateException if no server can be started
	 */
	public static RedisServer start() {
		return start(new String[0]);
	}

	/**
	 * Start a server with additional {@code redis-server} arguments, for example
	 * {@code "--maxmemory-policy", "noeviction"}.
	 * @param extraArgs arguments appended to the command line
	 * @return the running server
	 * @throws IllegalStateException if no server can be started
	 */
	public static RedisServer start(String... extraArgs) {
		Assert.notNull(extraArgs, "'extraArgs' must not be null");
		Assert.noNullElements(extraArgs, "'extraArgs' must not contain null elements");
		Path binary = findBinary();
		if (binary != null) {
			return startLocal(binary, ServerProcess::freePort, extraArgs);
		}
		if (testcontainersPresent && ServerContainer.isDockerAvailable()) {
			List<String> command = new ArrayList<>(List.of("redis-server", "--save", "", "--appendonly", "no"));
			command.addAll(List.of(extraArgs));
			return new RedisServer(
					ServerContainer.start(IMAGE, REDIS_PORT, command, ".*Ready to accept connections.*\\n",
							"a Redis server", "redis-server (for example 'apt-get install redis-server')"),
					null);
		}
		throw new IllegalStateException("Cannot start a Redis server for tests: no 'redis-server' binary on the PATH"
				+ (testcontainersPresent ? " and no Docker engine available"
						: " and Testcontainers is not on the classpath")
				+ ". Install Redis, for example with 'apt-get install redis-server' (Debian/Ubuntu) or "
				+ "'brew install redis' (macOS), or name the binary with -D" + BINARY_PROPERTY
				+ "=/path/to/redis-server");
	}

	/**
	 * Start a local server that accepts only TLS connections, with the given certificate;
	 * clients are not asked for certificates. {@link #command(String...)} speaks TLS to
	 * it.
	 * @param tls the server's certificate and key
	 * @param extraArgs arguments appended to the command line
	 * @return the running server
	 * @throws IllegalStateException if no local {@code redis-server} binary is found (a
	 * container is not used for TLS), or the server cannot be started
	 */
	public static RedisServer startWithTls(RedisTls tls, String... extraArgs) {
		Assert.notNull(tls, "'tls' must not be null");
		Assert.notNull(extraArgs, "'extraArgs' must not be null");
		Assert.noNullElements(extraArgs, "'extraArgs' must not contain null elements");
		Path binary = findBinary();
		Assert.state(binary != null, () -> "Cannot start a TLS Redis server for tests: no 'redis-server' binary on the "
				+ "PATH. Install Redis, or name the binary with -D" + BINARY_PROPERTY + "=/path/to/redis-server");
		return new RedisServer(ServerProcess.start(new RedisServerDefinition(binary, List.of(extraArgs), tls),
				ServerProcess::freePort), tls);
	}

	static RedisServer startLocal(Path binary, IntSupplier ports, String... extraArgs) {
		return new RedisServer(ServerProcess.start(new RedisServerDefinition(binary, List.of(extraArgs), null), ports),
				null);
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
	 * Return the server's address as a Redis URL, such as {@code redis://127.0.0.1:6379},
	 * for the {@code spring.data.redis.url} property.
	 * @return the URL
	 */
	public String url() {
		return (socketFactory() instanceof SSLSocketFactory ? "rediss://" : "redis://") + host() + ":" + port();
	}

	/**
	 * Send one command over a fresh connection and return the reply as text: a status or
	 * integer reply as its text, a bulk reply as its content, an array one element per
	 * line. Useful for {@code INFO commandstats}, {@code CONFIG RESETSTAT} or
	 * {@code FLUSHALL}.
	 * @param args the command and its arguments, sent as UTF-8 bulk strings
	 * @return the reply, or {@code null} for a nil reply
	 * @throws IllegalStateException if the server answers with an error
	 * @throws UncheckedIOException if the server cannot be reached or does not answer
	 * within 5 seconds
	 */
	public @Nullable String command(String... args) {
		return command(COMMAND_TIMEOUT, args);
	}

	@Nullable String command(Duration timeout, String... args) {
		Assert.notEmpty(args, "'args' must not be empty");
		Assert.noNullElements(args, "'args' must not contain null elements");
		try {
			return Resp.send(socketFactory(), host(), port(), timeout, args);
		}
		catch (Resp.ErrorReplyException ex) {
			throw new IllegalStateException(
					"Redis at " + host() + ":" + port() + " answered " + args[0] + " with '" + ex.getMessage() + "'");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(
					"Redis at " + host() + ":" + port() + " did not answer " + args[0] + ": " + ex.getMessage(), ex);
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
	 * Shut the server down, keeping its port for {@link #restart()}. Connections are
	 * closed and the data is lost. Does nothing if the server is already stopped.
	 * @throws UnsupportedOperationException if the server runs in a container
	 */
	public void stop() {
		this.backend.stop();
	}

	/**
	 * Kill the server process at once ({@code SIGKILL}), as a crash would: it saves
	 * nothing and waits for no replica. Its port is kept for {@link #restart()}. Does
	 * nothing if the server is already stopped.
	 * @throws UnsupportedOperationException if the server runs in a container
	 */
	public void kill() {
		this.backend.kill();
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
	 * End the server and delete its working directory. Calling it again does nothing.
	 */
	@Override
	public void close() {
		this.backend.close();
	}

	@Override
	public String toString() {
		return "RedisServer[" + this.backend + "]";
	}

	/**
	 * Return the working directory of a local server, which a {@link #restart()} keeps.
	 */
	Path directory() {
		return this.backend.directory();
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
				Path candidate = Path.of(directory, "redis-server");
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		return null;
	}

	private SocketFactory socketFactory() {
		return (this.tls != null) ? this.tls.socketFactory() : SocketFactory.getDefault();
	}

}
