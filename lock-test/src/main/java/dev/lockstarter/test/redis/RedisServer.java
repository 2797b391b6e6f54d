package dev.lockstarter.test.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import javax.net.SocketFactory;
import javax.net.ssl.SSLSocketFactory;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

import dev.lockstarter.test.ProcessSignals;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.util.FileSystemUtils;
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
 * {@linkplain #stop() stopped} and {@linkplain #restart() restarted} on the same port to
 * simulate a server restart; a restarted server starts empty. A server in a container
 * offers none of these.
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

	private static final Log logger = LogFactory.getLog(RedisServer.class);

	private static final boolean testcontainersPresent = ClassUtils.isPresent("org.testcontainers.DockerClientFactory",
			RedisServer.class.getClassLoader());

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	private static final int PORT_ATTEMPTS = 5;

	private static final Set<Backend> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(RedisServer::killAll, "redis-server-cleanup"));
	}

	private final Backend backend;

	private RedisServer(Backend backend) {
		this.backend = backend;
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
			return startLocal(binary, LocalProcess::freePort, extraArgs);
		}
		if (testcontainersPresent && Container.isDockerAvailable()) {
			return new RedisServer(Container.start(extraArgs));
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
		return new RedisServer(LocalProcess.start(binary, LocalProcess::freePort, tls, extraArgs));
	}

	static RedisServer startLocal(Path binary, IntSupplier ports, String... extraArgs) {
		return new RedisServer(LocalProcess.start(binary, ports, null, extraArgs));
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
		return (this.backend.socketFactory() instanceof SSLSocketFactory ? "rediss://" : "redis://") + host() + ":"
				+ port();
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
			return Resp.send(this.backend.socketFactory(), host(), port(), timeout, args);
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

	private static void killAll() {
		for (Backend backend : running) {
			try {
				backend.kill();
			}
			catch (RuntimeException ex) {
				// Best effort while the JVM exits
			}
		}
	}

	/**
	 * One way of running a server.
	 */
	private interface Backend {

		String host();

		int port();

		/**
		 * Return the factory of sockets that reach the server.
		 */
		default SocketFactory socketFactory() {
			return SocketFactory.getDefault();
		}

		void pause();

		void resume();

		void stop();

		void restart();

		void close();

		/**
		 * End the server at once, from the shutdown hook.
		 */
		void kill();

	}

	/**
	 * A {@code redis-server} child process.
	 */
	private static final class LocalProcess implements Backend {

		private static final String HOST = "127.0.0.1";

		private final Path binary;

		private final List<String> extraArgs;

		private final Path directory;

		private final Path log;

		private final int port;

		private final @Nullable RedisTls tls;

		private volatile @Nullable Process process;

		private boolean paused;

		private boolean closed;

		private LocalProcess(Path binary, String[] extraArgs, Path directory, int port, @Nullable RedisTls tls) {
			this.binary = binary;
			this.extraArgs = List.of(extraArgs);
			this.directory = directory;
			this.log = directory.resolve("redis-server.log");
			this.port = port;
			this.tls = tls;
		}

		static LocalProcess start(Path binary, IntSupplier ports, @Nullable RedisTls tls, String[] extraArgs) {
			Path directory = createDirectory();
			try {
				for (int attempt = 1;; attempt++) {
					LocalProcess server = new LocalProcess(binary, extraArgs, directory, ports.getAsInt(), tls);
					running.add(server);
					try {
						server.launch();
						return server;
					}
					catch (RuntimeException ex) {
						running.remove(server);
						if (!(ex instanceof PortTakenException)) {
							throw ex;
						}
						if (attempt == PORT_ATTEMPTS) {
							throw new IllegalStateException(
									"Could not start redis-server: " + PORT_ATTEMPTS
											+ " free ports were taken by other processes before it could bind them",
									ex);
						}
						logger.debug("Port " + server.port + " was taken before redis-server could bind it; retrying");
					}
				}
			}
			catch (RuntimeException ex) {
				FileSystemUtils.deleteRecursively(directory.toFile());
				throw ex;
			}
		}

		@Override
		public String host() {
			return HOST;
		}

		@Override
		public int port() {
			return this.port;
		}

		@Override
		public SocketFactory socketFactory() {
			return (this.tls != null) ? this.tls.socketFactory() : SocketFactory.getDefault();
		}

		@Override
		public synchronized void pause() {
			Process process = requireRunning("pause");
			if (!this.paused) {
				ProcessSignals.stop(process);
				this.paused = true;
			}
		}

		@Override
		public synchronized void resume() {
			Process process = this.process;
			if (this.paused && process != null && process.isAlive()) {
				ProcessSignals.resume(process);
			}
			this.paused = false;
		}

		@Override
		public synchronized void stop() {
			Process process = this.process;
			if (process == null) {
				return;
			}
			resume();
			process.destroy();
			try {
				if (!process.waitFor(5, TimeUnit.SECONDS)) {
					process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				process.destroyForcibly();
			}
			this.process = null;
		}

		@Override
		public synchronized void restart() {
			Assert.state(!this.closed, "Cannot restart a closed Redis server");
			stop();
			try {
				launch();
			}
			catch (PortTakenException ex) {
				throw new IllegalStateException(
						"Cannot restart redis-server: another process took port " + this.port + " while it was stopped",
						ex);
			}
		}

		@Override
		public synchronized void close() {
			if (!this.closed) {
				this.closed = true;
				stop();
				running.remove(this);
				FileSystemUtils.deleteRecursively(this.directory.toFile());
			}
		}

		@Override
		public void kill() {
			Process process = this.process;
			if (process != null) {
				process.destroyForcibly();
			}
			FileSystemUtils.deleteRecursively(this.directory.toFile());
		}

		private void launch() {
			List<String> command = new ArrayList<>(List.of(this.binary.toString(), "--port",
					Integer.toString(this.port), "--bind", HOST, "--protected-mode", "no", "--save", "", "--appendonly",
					"no", "--daemonize", "no", "--dir", this.directory.toString()));
			if (this.tls != null) {
				command.set(2, "0");
				command.addAll(List.of("--tls-port", Integer.toString(this.port), "--tls-cert-file",
						this.tls.certificate().toString(), "--tls-key-file", this.tls.privateKey().toString(),
						"--tls-ca-cert-file", this.tls.certificate().toString(), "--tls-auth-clients", "no"));
			}
			command.addAll(this.extraArgs);
			long logOffset = logSize();
			long started = System.nanoTime();
			Process process;
			try {
				process = new ProcessBuilder(command).directory(this.directory.toFile())
					.redirectErrorStream(true)
					.redirectOutput(ProcessBuilder.Redirect.appendTo(this.log.toFile()))
					.start();
			}
			catch (IOException ex) {
				throw new IllegalStateException("Could not run " + this.binary + ": " + ex.getMessage(), ex);
			}
			this.process = process;
			try {
				awaitReady(process, logOffset);
			}
			catch (RuntimeException ex) {
				process.destroyForcibly();
				this.process = null;
				throw ex;
			}
			if (logger.isDebugEnabled()) {
				logger.debug("Started redis-server (pid " + process.pid() + ") on " + HOST + ":" + this.port + " in "
						+ Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
			}
		}

		private void awaitReady(Process process, long logOffset) {
			long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
			while (true) {
				if (!process.isAlive()) {
					String output = output(logOffset);
					if (output.contains("Address already in use")) {
						throw new PortTakenException();
					}
					throw new IllegalStateException("redis-server exited with code " + process.exitValue()
							+ " before accepting connections on port " + this.port + ". Command: " + this.binary
							+ " --port " + this.port + " ... " + String.join(" ", this.extraArgs) + "\nOutput:\n"
							+ output);
				}
				try {
					// A TLS handshake takes longer than a plain PING
					Duration probe = (this.tls != null) ? Duration.ofSeconds(1) : Duration.ofMillis(100);
					if ("PONG".equals(Resp.send(socketFactory(), HOST, this.port, probe, "PING"))) {
						String info = Resp.send(socketFactory(), HOST, this.port, Duration.ofSeconds(1), "INFO",
								"server");
						if (info != null && info.contains("process_id:" + process.pid() + "\r\n")) {
							return;
						}
						// Someone else's server answered on our port: ours cannot bind it
						throw new PortTakenException();
					}
				}
				catch (IOException | Resp.ErrorReplyException ex) {
					// Not listening yet, or still loading
				}
				if (System.nanoTime() - deadline > 0) {
					throw new IllegalStateException("redis-server did not answer PING on " + HOST + ":" + this.port
							+ " within " + STARTUP_TIMEOUT.toSeconds() + " s. Output:\n" + output(logOffset));
				}
				try {
					Thread.sleep(10);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new IllegalStateException("Interrupted while waiting for redis-server to start", ex);
				}
			}
		}

		private Process requireRunning(String operation) {
			Process process = this.process;
			Assert.state(process != null && process.isAlive(),
					() -> "Cannot " + operation + " redis-server on port " + this.port + ": it is not running");
			return process;
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

		private static Path createDirectory() {
			try {
				return Files.createTempDirectory("redis-server-");
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not create a working directory for redis-server", ex);
			}
		}

		static int freePort() {
			try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
				return socket.getLocalPort();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not find a free port for redis-server", ex);
			}
		}

		@Override
		public String toString() {
			Process process = this.process;
			return HOST + ":" + this.port + ((process != null) ? ", pid " + process.pid() : ", stopped")
					+ (this.paused ? ", paused" : "");
		}

		/**
		 * The chosen port was taken by another process before the server could bind it.
		 */
		private static final class PortTakenException extends RuntimeException {

			PortTakenException() {
				super(null, null, false, false);
			}

		}

	}

	/**
	 * A server in a Testcontainers container. Inner class to keep Testcontainers an
	 * optional dependency.
	 */
	private static final class Container implements Backend {

		private static final int REDIS_PORT = 6379;

		private final GenericContainer<?> container;

		private Container(GenericContainer<?> container) {
			this.container = container;
		}

		static boolean isDockerAvailable() {
			try {
				return DockerClientFactory.instance().isDockerAvailable();
			}
			catch (RuntimeException | LinkageError ex) {
				return false;
			}
		}

		static Container start(String[] extraArgs) {
			List<String> command = new ArrayList<>(List.of("redis-server", "--save", "", "--appendonly", "no"));
			command.addAll(List.of(extraArgs));
			GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(IMAGE))
				.withExposedPorts(REDIS_PORT)
				.withCommand(command.toArray(String[]::new))
				.waitingFor(Wait.forLogMessage(".*Ready to accept connections.*\\n", 1));
			container.start();
			Container server = new Container(container);
			running.add(server);
			return server;
		}

		@Override
		public String host() {
			return this.container.getHost();
		}

		@Override
		public int port() {
			return this.container.getMappedPort(REDIS_PORT);
		}

		@Override
		public void pause() {
			throw unsupported("pause");
		}

		@Override
		public void resume() {
			throw unsupported("resume");
		}

		@Override
		public void stop() {
			throw unsupported("stop");
		}

		@Override
		public void restart() {
			throw unsupported("restart");
		}

		private UnsupportedOperationException unsupported(String operation) {
			return new UnsupportedOperationException("Cannot " + operation + " a Redis server that runs in a "
					+ "container; install a local redis-server (for example 'apt-get install redis-server') so that "
					+ "tests that " + operation + " the server run against a local process");
		}

		@Override
		public void close() {
			running.remove(this);
			this.container.stop();
		}

		@Override
		public void kill() {
			this.container.stop();
		}

		@Override
		public String toString() {
			return "container " + IMAGE + " at " + host() + ":" + port();
		}

	}

}
