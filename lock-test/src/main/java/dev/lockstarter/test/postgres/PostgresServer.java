package dev.lockstarter.test.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

import dev.lockstarter.test.DataDirectoryTemplate;
import dev.lockstarter.test.ProcessSignals;
import dev.lockstarter.test.ServerProcess;
import org.springframework.util.Assert;
import org.springframework.util.FileSystemUtils;

/**
 * A real PostgreSQL server for tests: a throwaway cluster in a temporary directory,
 * listening on a free loopback port (and a Unix socket in the same directory), with one
 * database, {@value #DATABASE}, owned by the superuser {@value #USER}, who connects
 * without a password.
 * <p>
 * {@link #start()} finds the server binaries ({@code initdb}, {@code pg_ctl},
 * {@code createdb}): in the directory named by the {@value #BIN_PROPERTY} system
 * property, else in the newest {@code /usr/lib/postgresql/<version>/bin} (Debian and
 * Ubuntu's {@code postgresql} package), else on the {@code PATH}. It copies the data
 * directory that {@code initdb} made for the JVM's first server
 * ({@link DataDirectoryTemplate}), starts the server with {@code pg_ctl} and waits until
 * it accepts connections, then creates the database (about half a second in all, and a
 * second or two more for the first server's {@code initdb}). PostgreSQL refuses to run as
 * root, so when the JVM runs as root (as in CI) every binary is run as the
 * {@code postgres} user through {@code runuser}, and the directory is given to that user.
 * <p>
 * The server runs with {@code fsync} off: its data survives a {@linkplain #restart()
 * restart}, not a crash of the machine. It can be {@linkplain #pause() paused}
 * ({@code SIGSTOP} to the postmaster and every backend, so open connections stop
 * answering too) and {@linkplain #resume() resumed}, {@linkplain #stop() stopped} and
 * {@linkplain #restart() restarted} on the same port. {@link #close()} ends it and
 * deletes the directory; servers still running when the JVM exits are stopped by a
 * shutdown hook.
 *
 * <pre class="code">
 * try (PostgresServer postgres = PostgresServer.start()) {
 *     DataSource dataSource = ...(postgres.jdbcUrl(), postgres.username());
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see PostgresServerExtension
 */
public final class PostgresServer implements AutoCloseable {

	/**
	 * System property naming the directory of the PostgreSQL binaries, instead of
	 * searching for them.
	 */
	public static final String BIN_PROPERTY = "lockstarter.test.postgres.bin";

	/** The superuser that tests connect as, without a password. */
	public static final String USER = "lockstarter";

	/** The database created for tests. */
	public static final String DATABASE = "lockstarter";

	private static final String OS_USER_AS_ROOT = "postgres";

	private static final int PORT_ATTEMPTS = 5;

	private static final long COMMAND_TIMEOUT_SECONDS = 60;

	private static final Set<PostgresServer> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime().addShutdownHook(new Thread(PostgresServer::stopAll, "postgres-cleanup"));
	}

	private final Path bin;

	private final Path directory;

	private final Path data;

	private final Path log;

	private final boolean asRoot;

	private int port;

	private boolean started;

	private boolean paused;

	private boolean closed;

	private PostgresServer(Path bin, Path directory, boolean asRoot) {
		this.bin = bin;
		this.directory = directory;
		this.data = directory.resolve("data");
		this.log = directory.resolve("postgres.log");
		this.asRoot = asRoot;
	}

	/**
	 * Create a cluster, start it on a free port and create the {@value #DATABASE}
	 * database.
	 * @return the running server
	 * @throws IllegalStateException if no server can be started, with what to install
	 */
	public static PostgresServer start() {
		Path bin = PostgresBinaries.find();
		boolean asRoot = "root".equals(System.getProperty("user.name"));
		Path directory;
		try {
			directory = Files.createTempDirectory("postgres-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a directory for PostgreSQL", ex);
		}
		PostgresServer server = new PostgresServer(bin, directory, asRoot);
		running.add(server);
		try {
			server.initialize();
			server.launch(ServerProcess::freePort);
			server.run(List.of(bin.resolve("createdb").toString(), "-h", directory.toString(), "-p",
					Integer.toString(server.port), "-U", USER, DATABASE), false);
			return server;
		}
		catch (RuntimeException ex) {
			server.close();
			throw ex;
		}
	}

	/**
	 * Return the host the server listens on.
	 * @return {@code 127.0.0.1}
	 */
	public String host() {
		return ServerProcess.HOST;
	}

	/**
	 * Return the port the server listens on, also after a restart.
	 * @return the port
	 */
	public synchronized int port() {
		return this.port;
	}

	/**
	 * Return the JDBC URL of the {@value #DATABASE} database, for the PostgreSQL JDBC
	 * driver ({@code org.postgresql:postgresql}).
	 * @return the URL, such as {@code jdbc:postgresql://127.0.0.1:5433/lockstarter}
	 */
	public String jdbcUrl() {
		return "jdbc:postgresql://" + host() + ":" + port() + "/" + DATABASE;
	}

	/**
	 * Return the user to connect as, who needs no password.
	 * @return {@value #USER}
	 */
	public String username() {
		return USER;
	}

	/**
	 * Return the server's directory: its data, its log ({@code postgres.log}) and its
	 * Unix socket. Deleted on {@link #close()}.
	 * @return the directory
	 */
	public Path directory() {
		return this.directory;
	}

	/**
	 * Return the process id of the postmaster, the server's main process.
	 * @return the pid
	 * @throws IllegalStateException if the server is not running
	 */
	public long pid() {
		try {
			String first = Files.readAllLines(this.data.resolve("postmaster.pid"), StandardCharsets.UTF_8).get(0);
			return Long.parseLong(first.strip());
		}
		catch (IOException | RuntimeException ex) {
			throw new IllegalStateException("PostgreSQL on port " + this.port + " is not running", ex);
		}
	}

	/**
	 * Suspend the server ({@code SIGSTOP}): the postmaster and every backend, so that
	 * neither open connections nor new ones are answered until {@link #resume()}.
	 * @throws IllegalStateException if the server is not running
	 */
	public synchronized void pause() {
		Assert.state(this.started, () -> "Cannot pause PostgreSQL on port " + this.port + ": it is not running");
		if (!this.paused) {
			ProcessHandle postmaster = ProcessHandle.of(pid())
				.orElseThrow(() -> new IllegalStateException("PostgreSQL's postmaster is gone"));
			// The postmaster first, so that it starts no backend once the others stop
			ProcessSignals.stop(postmaster);
			// From here on, resume() undoes whatever was stopped
			this.paused = true;
			postmaster.descendants().forEach((backend) -> signalUnlessGone(backend, ProcessSignals::stop));
		}
	}

	/**
	 * Signal a backend, unless it exits meanwhile: a backend ends when its client
	 * disconnects, which may happen between listing the backends and signalling them.
	 */
	private static void signalUnlessGone(ProcessHandle backend, Consumer<ProcessHandle> signal) {
		try {
			signal.accept(backend);
		}
		catch (IllegalStateException ex) {
			if (backend.isAlive()) {
				throw ex;
			}
		}
	}

	/**
	 * Resume a {@linkplain #pause() paused} server ({@code SIGCONT}). Does nothing if the
	 * server is not paused.
	 */
	public synchronized void resume() {
		if (this.paused) {
			this.paused = false;
			ProcessHandle.of(pid()).ifPresent((postmaster) -> {
				postmaster.descendants().forEach((backend) -> signalUnlessGone(backend, ProcessSignals::resume));
				ProcessSignals.resume(postmaster);
			});
		}
	}

	/**
	 * Stop the server ({@code pg_ctl stop -m fast}: open connections are closed, the data
	 * is kept), keeping the port and the data for {@link #restart()}. Does nothing if the
	 * server is stopped.
	 */
	public synchronized void stop() {
		resume();
		if (this.started) {
			run(List.of(this.bin.resolve("pg_ctl").toString(), "-D", this.data.toString(), "-m", "fast", "-w", "stop"),
					true);
			this.started = false;
		}
	}

	/**
	 * Start the server again on the same port, with its data, stopping it first if it
	 * runs.
	 * @throws IllegalStateException if the server is closed or cannot be started again
	 */
	public synchronized void restart() {
		Assert.state(!this.closed, "Cannot restart a closed PostgreSQL server");
		stop();
		int samePort = this.port;
		launch(() -> samePort);
	}

	/**
	 * Stop the server at once ({@code pg_ctl stop -m immediate}) and delete its
	 * directory. Calling it again does nothing.
	 */
	@Override
	public synchronized void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		running.remove(this);
		try {
			resume();
			if (this.started) {
				run(List.of(this.bin.resolve("pg_ctl").toString(), "-D", this.data.toString(), "-m", "immediate", "-w",
						"stop"), true);
				this.started = false;
			}
		}
		catch (RuntimeException ex) {
			// Deleting the directory below ends a server that could not be stopped
		}
		finally {
			FileSystemUtils.deleteRecursively(this.directory.toFile());
		}
	}

	/**
	 * Make the cluster's data directory: a copy of one that {@code initdb} made once in
	 * this JVM.
	 */
	private void initialize() {
		if (this.asRoot) {
			giveToServerUser(this.directory);
		}
		String template = "postgres " + this.bin + (this.asRoot ? " as " + OS_USER_AS_ROOT : "");
		DataDirectoryTemplate.copy(template, (directory, data) -> {
			if (this.asRoot) {
				giveToServerUser(directory);
			}
			run(List.of(this.bin.resolve("initdb").toString(), "-D", data.toString(), "-U", USER, "-A", "trust", "-E",
					"UTF8", "--locale=C", "--no-sync", "--no-instructions"), true);
		}, this.data);
	}

	private synchronized void launch(IntSupplier ports) {
		for (int attempt = 1;; attempt++) {
			int candidate = ports.getAsInt();
			String options = "-p " + candidate + " -h " + ServerProcess.HOST + " -k " + this.directory
					+ " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB"
					+ " -c max_connections=60";
			try {
				run(List.of(this.bin.resolve("pg_ctl").toString(), "-D", this.data.toString(), "-l",
						this.log.toString(), "-o", options, "-w", "-t", "30", "start"), true);
				this.port = candidate;
				this.started = true;
				return;
			}
			catch (IllegalStateException ex) {
				String log = readLog();
				boolean portTaken = log.contains("could not bind") || log.contains("Address already in use");
				if (!portTaken || attempt == PORT_ATTEMPTS) {
					throw new IllegalStateException(ex.getMessage() + "\nServer log:\n" + log, ex);
				}
				truncateLog();
			}
		}
	}

	private String run(List<String> command, boolean asServerUser) {
		List<String> line = new ArrayList<>();
		if (asServerUser && this.asRoot) {
			line.addAll(List.of("runuser", "-u", OS_USER_AS_ROOT, "--"));
		}
		line.addAll(command);
		try {
			Process process = new ProcessBuilder(line).directory(this.directory.toFile())
				.redirectErrorStream(true)
				.start();
			process.getOutputStream().close();
			byte[] output = process.getInputStream().readAllBytes();
			if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				throw new IllegalStateException(
						"'" + String.join(" ", line) + "' did not end within " + COMMAND_TIMEOUT_SECONDS + " s");
			}
			String text = new String(output, StandardCharsets.UTF_8);
			if (process.exitValue() != 0) {
				throw new IllegalStateException(
						"'" + String.join(" ", line) + "' failed with exit code " + process.exitValue() + ":\n" + text);
			}
			return text;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not run '" + String.join(" ", line) + "': " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running '" + String.join(" ", line) + "'", ex);
		}
	}

	private String readLog() {
		try {
			return Files.exists(this.log) ? Files.readString(this.log, StandardCharsets.UTF_8) : "(no log)";
		}
		catch (IOException ex) {
			return "(no log: " + ex.getMessage() + ")";
		}
	}

	private void truncateLog() {
		try {
			Files.deleteIfExists(this.log);
		}
		catch (IOException ex) {
			// pg_ctl appends to it
		}
	}

	private static void giveToServerUser(Path directory) {
		try {
			UserPrincipalLookupService lookup = directory.getFileSystem().getUserPrincipalLookupService();
			UserPrincipal user = lookup.lookupPrincipalByName(OS_USER_AS_ROOT);
			GroupPrincipal group = lookup.lookupPrincipalByGroupName(OS_USER_AS_ROOT);
			PosixFileAttributeView view = Files.getFileAttributeView(directory, PosixFileAttributeView.class);
			view.setOwner(user);
			view.setGroup(group);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run PostgreSQL as root, and there is no '" + OS_USER_AS_ROOT
					+ "' user to run it as: install PostgreSQL with 'apt-get install postgresql', which creates it, "
					+ "or run the tests as a normal user", ex);
		}
	}

	private static void stopAll() {
		for (PostgresServer server : running) {
			try {
				server.close();
			}
			catch (RuntimeException ex) {
				// Best effort while the JVM exits
			}
		}
	}

	@Override
	public String toString() {
		return "PostgresServer[" + host() + ":" + this.port + (this.started ? "" : ", stopped")
				+ (this.paused ? ", paused" : "") + "]";
	}

}
