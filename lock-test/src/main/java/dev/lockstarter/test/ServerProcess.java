package dev.lockstarter.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import org.springframework.util.Assert;
import org.springframework.util.FileSystemUtils;

/**
 * A server binary run as a child process on a loopback port, in a temporary working
 * directory, for the servers of the test kit.
 * <p>
 * {@link #start(Definition, IntSupplier)} picks a port, runs the command with its output
 * appended to a log file in the directory, and polls the {@linkplain Definition#probe
 * readiness probe} until the server answers. When the port turns out to be taken by
 * another process, it tries again with another port. A started process can be
 * {@linkplain #pause() paused} and {@linkplain #resume() resumed}
 * ({@code SIGSTOP}/{@code SIGCONT}, see {@link ProcessSignals}), {@linkplain #stop()
 * stopped} or {@linkplain #kill() killed} and {@linkplain #restart() restarted} on the
 * same port. {@link #close()} ends it and deletes the directory; processes still running
 * when the JVM exits are killed by a shutdown hook.
 * <p>
 * What differs from server to server, the command line, the readiness probe and how a
 * taken port shows in the log, is given by a {@link Definition}.
 *
 * @since 0.1.0
 */
@Internal
public final class ServerProcess implements ServerBackend {

	/** The address servers listen on. */
	public static final String HOST = "127.0.0.1";

	private static final Log logger = LogFactory.getLog(ServerProcess.class);

	private static final int PORT_ATTEMPTS = 5;

	private static final Set<ServerProcess> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(ServerProcess::killAll, "server-process-cleanup"));
	}

	private final Definition definition;

	private final Path directory;

	private final Path log;

	private final int port;

	private volatile @Nullable Process process;

	private boolean paused;

	private boolean closed;

	private ServerProcess(Definition definition, Path directory, int port) {
		this.definition = definition;
		this.directory = directory;
		this.log = directory.resolve(definition.name() + ".log");
		this.port = port;
	}

	/**
	 * Start a server on a port from the given supplier, trying up to five ports when they
	 * turn out to be taken by other processes.
	 * @param definition what to run and how to tell that it is ready
	 * @param ports the ports to try, {@link #freePort()} for example
	 * @return the running server
	 * @throws IllegalStateException if the server cannot be started
	 */
	public static ServerProcess start(Definition definition, IntSupplier ports) {
		Assert.notNull(definition, "'definition' must not be null");
		Assert.notNull(ports, "'ports' must not be null");
		String name = definition.name();
		Path directory = createDirectory(name);
		try {
			for (int attempt = 1;; attempt++) {
				ServerProcess server = new ServerProcess(definition, directory, ports.getAsInt());
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
						throw new IllegalStateException("Could not start " + name + ": " + PORT_ATTEMPTS
								+ " free ports were taken by other processes before it could bind them", ex);
					}
					logger.debug("Port " + server.port + " was taken before " + name + " could bind it; retrying");
				}
			}
		}
		catch (RuntimeException ex) {
			FileSystemUtils.deleteRecursively(directory.toFile());
			throw ex;
		}
	}

	/**
	 * Return a loopback port that is free now; another process may take it before the
	 * server binds it, which {@link #start(Definition, IntSupplier)} handles.
	 * @return the port
	 * @throws UncheckedIOException if no port can be found
	 */
	public static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not find a free port", ex);
		}
	}

	/**
	 * Return the host the server listens on.
	 * @return the {@linkplain Definition#host() definition's host}, {@value #HOST} unless
	 * it says otherwise
	 */
	@Override
	public String host() {
		return this.definition.host();
	}

	/**
	 * Return the port the server listens on, also after a restart.
	 * @return the port
	 */
	@Override
	public int port() {
		return this.port;
	}

	/**
	 * Return the server's working directory, deleted on {@link #close()}.
	 * @return the directory
	 */
	@Override
	public Path directory() {
		return this.directory;
	}

	/**
	 * Suspend the process ({@code SIGSTOP}) and wait until all its threads are stopped.
	 * @throws IllegalStateException if the process is not running
	 */
	@Override
	public synchronized void pause() {
		Process process = this.process;
		Assert.state(process != null && process.isAlive(),
				() -> "Cannot pause " + this.definition.name() + " on port " + this.port + ": it is not running");
		if (!this.paused) {
			ProcessSignals.stop(process);
			this.paused = true;
		}
	}

	/**
	 * Resume a {@linkplain #pause() paused} process ({@code SIGCONT}). Does nothing if
	 * the process is not paused.
	 */
	@Override
	public synchronized void resume() {
		Process process = this.process;
		if (this.paused && process != null && process.isAlive()) {
			ProcessSignals.resume(process);
		}
		this.paused = false;
	}

	/**
	 * End the process, keeping the port and the directory for {@link #restart()}: with
	 * {@code SIGTERM} and then {@code SIGKILL} after the
	 * {@linkplain Definition#shutdownGracePeriod() grace period}, or at once with
	 * {@code SIGKILL} if there is none. Does nothing if the process is already stopped.
	 */
	@Override
	public void stop() {
		stop(this.definition.shutdownGracePeriod());
	}

	/**
	 * End the process at once with {@code SIGKILL}, as a crash would, keeping the port
	 * and the directory for {@link #restart()}. Does nothing if the process is already
	 * stopped.
	 */
	@Override
	public void kill() {
		stop(Duration.ZERO);
	}

	private synchronized void stop(Duration grace) {
		Process process = this.process;
		if (process == null) {
			return;
		}
		resume();
		try {
			if (grace.isZero() || grace.isNegative()) {
				process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
			}
			else {
				process.destroy();
				if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
					process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			process.destroyForcibly();
		}
		this.process = null;
	}

	/**
	 * Start the process again on the same port, stopping it first if it runs.
	 * @throws IllegalStateException if the server is closed or cannot be started again,
	 * for example because another process took its port
	 */
	@Override
	public synchronized void restart() {
		String name = this.definition.name();
		Assert.state(!this.closed, () -> "Cannot restart a closed " + name);
		stop();
		try {
			launch();
		}
		catch (PortTakenException ex) {
			throw new IllegalStateException(
					"Cannot restart " + name + ": another process took port " + this.port + " while it was stopped",
					ex);
		}
	}

	/**
	 * End the process and delete the working directory. Calling it again does nothing.
	 */
	@Override
	public synchronized void close() {
		if (!this.closed) {
			this.closed = true;
			stop();
			running.remove(this);
			FileSystemUtils.deleteRecursively(this.directory.toFile());
		}
	}

	private void killAndDelete() {
		Process process = this.process;
		if (process != null) {
			process.destroyForcibly();
		}
		FileSystemUtils.deleteRecursively(this.directory.toFile());
	}

	private void launch() {
		long started = System.nanoTime();
		Process process = new ServerLaunch(this.definition, this.directory, this.log, this.port).start();
		this.process = process;
		if (logger.isDebugEnabled()) {
			logger.debug("Started " + this.definition.name() + " (pid " + process.pid() + ") on " + host() + ":"
					+ this.port + " in " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
		}
	}

	private static Path createDirectory(String name) {
		try {
			return Files.createTempDirectory(name + "-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a working directory for " + name, ex);
		}
	}

	private static void killAll() {
		for (ServerProcess server : running) {
			try {
				server.killAndDelete();
			}
			catch (RuntimeException ex) {
				// Best effort while the JVM exits
			}
		}
	}

	@Override
	public String toString() {
		Process process = this.process;
		return host() + ":" + this.port + ((process != null) ? ", pid " + process.pid() : ", stopped")
				+ (this.paused ? ", paused" : "");
	}

	/**
	 * What a {@link ServerProcess} runs and how it tells that the server is ready.
	 */
	public interface Definition {

		/**
		 * Return the name of the server, such as {@code redis-server}, for messages and
		 * the names of the directory and the log file.
		 * @return the name
		 */
		String name();

		/**
		 * Return the address the server listens on, and clients connect to.
		 * @return the address, {@value ServerProcess#HOST} by default
		 */
		default String host() {
			return HOST;
		}

		/**
		 * Return the command line that starts the server on the given port. Called before
		 * every start, so it may also write files the server reads into the directory.
		 * @param directory the working directory
		 * @param port the port to listen on
		 * @return the command line, the binary first
		 * @throws IOException if the directory cannot be prepared
		 */
		List<String> command(Path directory, int port) throws IOException;

		/**
		 * Probe the server once.
		 * @param process the process that was started
		 * @param port the port it should listen on
		 * @return whether the server is ready; {@code false} to probe again
		 * @throws IOException if the server does not answer yet, to probe again
		 * @throws PortTakenException if another process answers on the port
		 */
		boolean probe(Process process, int port) throws IOException;

		/**
		 * Return whether the output of a process that exited says that its port was
		 * taken, so that another port is tried.
		 * @param output the process's output
		 * @return whether the port was taken; by default whether the output contains
		 * {@code Address already in use}
		 */
		default boolean isPortTaken(String output) {
			return output.contains("Address already in use");
		}

		/**
		 * Return how long {@link ServerProcess#stop()} waits after {@code SIGTERM} before
		 * it kills the process.
		 * @return the grace period, 5 seconds by default; zero to kill at once
		 */
		default Duration shutdownGracePeriod() {
			return Duration.ofSeconds(5);
		}

	}

	/**
	 * Thrown by a {@linkplain Definition#probe readiness probe} when another process
	 * answers on the port the server should have bound.
	 */
	public static final class PortTakenException extends RuntimeException {

		/**
		 * Create a new instance.
		 */
		public PortTakenException() {
			super(null, null, false, false);
		}

	}

}
