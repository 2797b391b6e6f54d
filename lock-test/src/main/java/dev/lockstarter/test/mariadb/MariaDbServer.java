package dev.lockstarter.test.mariadb;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.DataDirectoryTemplate;
import dev.lockstarter.test.ServerProcess;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * A real MariaDB server for tests: a throwaway data directory in a temporary directory,
 * listening on a free loopback port (and a Unix socket in the same directory), with one
 * database, {@value #DATABASE}, and one user, {@value #USER} (password
 * {@value #PASSWORD}), who may do anything.
 * <p>
 * {@link #start()} finds {@code mariadbd} in the directory named by the
 * {@value #BIN_PROPERTY} system property, else on the {@code PATH}, in {@code /usr/sbin}
 * or {@code /usr/local/sbin} (Debian and Ubuntu's {@code mariadb-server} package), and
 * {@code mariadb-install-db} beside it or on the {@code PATH}. It copies the system
 * tables that {@code mariadb-install-db} made for the JVM's first server
 * ({@link DataDirectoryTemplate}), then runs {@code mariadbd} with no option file as a
 * child process, which creates the database and the user from an init file, and waits
 * until the server greets a client (a fraction of a second, after two to four seconds for
 * the first server's system tables). Run as root, as in CI, the server runs as root too
 * ({@code --user=root}).
 * <p>
 * The server writes its redo log at every commit but does not flush it: its data survives
 * a {@linkplain #restart() restart} and a {@linkplain #kill() kill}, not a crash of the
 * machine. It can be {@linkplain #pause() paused} ({@code SIGSTOP}: the server is one
 * process, so open connections stop answering too) and {@linkplain #resume() resumed},
 * {@linkplain #stop() stopped} or {@linkplain #kill() killed} and {@linkplain #restart()
 * restarted} on the same port. {@link #close()} kills it and deletes the directory;
 * servers still running when the JVM exits are killed by a shutdown hook.
 *
 * <pre class="code">
 * try (MariaDbServer mariadb = MariaDbServer.start()) {
 *     DataSource dataSource = ...(mariadb.jdbcUrl(), mariadb.username(), mariadb.password());
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see MariaDbServerExtension
 */
public final class MariaDbServer implements AutoCloseable {

	/**
	 * System property naming the directory of the {@code mariadbd} binary, instead of
	 * searching for it.
	 */
	public static final String BIN_PROPERTY = "lockstarter.test.mariadb.bin";

	/** The user that tests connect as. */
	public static final String USER = "lockstarter";

	/** The password of {@value #USER}. */
	public static final String PASSWORD = "lockstarter";

	/** The database created for tests. */
	public static final String DATABASE = "lockstarter";

	private static final long INSTALL_TIMEOUT_SECONDS = 60;

	private static final String INIT_SQL = """
			DROP USER IF EXISTS ''@'localhost';
			CREATE DATABASE IF NOT EXISTS %1$s CHARACTER SET utf8mb4;
			CREATE USER IF NOT EXISTS '%2$s'@'%%' IDENTIFIED BY '%3$s';
			GRANT ALL ON *.* TO '%2$s'@'%%';
			""".formatted(DATABASE, USER, PASSWORD);

	private final ServerProcess process;

	private MariaDbServer(ServerProcess process) {
		this.process = process;
	}

	/**
	 * Create a data directory, start the server on a free port and create the
	 * {@value #DATABASE} database and the {@value #USER} user.
	 * @return the running server
	 * @throws IllegalStateException if no server can be started, with what to install
	 */
	public static MariaDbServer start() {
		Path server = findServer();
		Path installer = findInstaller(server.getParent());
		boolean asRoot = "root".equals(System.getProperty("user.name"));
		return new MariaDbServer(
				ServerProcess.start(new Definition(server, installer, asRoot), ServerProcess::freePort));
	}

	/**
	 * Return the host the server listens on.
	 * @return {@code 127.0.0.1}
	 */
	public String host() {
		return this.process.host();
	}

	/**
	 * Return the port the server listens on, also after a restart.
	 * @return the port
	 */
	public int port() {
		return this.process.port();
	}

	/**
	 * Return the JDBC URL of the {@value #DATABASE} database, for MariaDB's JDBC driver
	 * ({@code org.mariadb.jdbc:mariadb-java-client}).
	 * @return the URL, such as {@code jdbc:mariadb://127.0.0.1:3307/lockstarter}
	 */
	public String jdbcUrl() {
		return "jdbc:mariadb://" + host() + ":" + port() + "/" + DATABASE;
	}

	/**
	 * Return the user to connect as.
	 * @return {@value #USER}
	 */
	public String username() {
		return USER;
	}

	/**
	 * Return the user's password.
	 * @return {@value #PASSWORD}
	 */
	public String password() {
		return PASSWORD;
	}

	/**
	 * Return the server's directory: its data ({@code data}), its log
	 * ({@code mariadbd.log}), its Unix socket and its pid file. Deleted on
	 * {@link #close()}.
	 * @return the directory
	 */
	public Path directory() {
		return this.process.directory();
	}

	/**
	 * Return the process id of the server.
	 * @return the pid
	 * @throws IllegalStateException if the server is not running
	 */
	public long pid() {
		Long pid = Definition.pid(directory());
		Assert.state(pid != null, () -> "MariaDB on port " + port() + " is not running");
		return pid;
	}

	/**
	 * Suspend the server ({@code SIGSTOP}), so that neither open connections nor new ones
	 * are answered until {@link #resume()}.
	 * @throws IllegalStateException if the server is not running
	 */
	public void pause() {
		this.process.pause();
	}

	/**
	 * Resume a {@linkplain #pause() paused} server ({@code SIGCONT}). Does nothing if the
	 * server is not paused.
	 */
	public void resume() {
		this.process.resume();
	}

	/**
	 * Shut the server down ({@code SIGTERM}: open connections are closed, the data is
	 * kept), keeping the port and the data for {@link #restart()}. Does nothing if the
	 * server is stopped.
	 */
	public void stop() {
		this.process.stop();
	}

	/**
	 * Kill the server at once ({@code SIGKILL}), as a crash would, keeping the port and
	 * the data for {@link #restart()}, which recovers the committed transactions. Does
	 * nothing if the server is stopped.
	 */
	public void kill() {
		this.process.kill();
	}

	/**
	 * Start the server again on the same port, with its data, stopping it first if it
	 * runs.
	 * @throws IllegalStateException if the server is closed or cannot be started again
	 */
	public void restart() {
		this.process.restart();
	}

	/**
	 * Kill the server and delete its directory. Calling it again does nothing.
	 */
	@Override
	public void close() {
		// The data is thrown away: no need for a clean shutdown
		this.process.kill();
		this.process.close();
	}

	@Override
	public String toString() {
		return "MariaDbServer[" + this.process + "]";
	}

	static Path findServer() {
		String configured = System.getProperty(BIN_PROPERTY);
		if (StringUtils.hasText(configured)) {
			Path server = Path.of(configured.strip(), "mariadbd");
			Assert.state(Files.isExecutable(server),
					() -> "-D" + BIN_PROPERTY + " names '" + configured.strip() + "', which holds no mariadbd");
			return server;
		}
		List<String> directories = new ArrayList<>(pathDirectories());
		directories.addAll(List.of("/usr/sbin", "/usr/local/sbin"));
		Path server = findExecutable("mariadbd", directories);
		if (server == null) {
			throw new IllegalStateException("Cannot start a MariaDB server for tests: no mariadbd on the PATH, in "
					+ "/usr/sbin or in /usr/local/sbin. Install MariaDB, for example with "
					+ "'apt-get install mariadb-server' (Debian/Ubuntu) or 'brew install mariadb' (macOS), or name the "
					+ "directory of mariadbd with -D" + BIN_PROPERTY + "=/path/to/bin");
		}
		return server;
	}

	private static Path findInstaller(@Nullable Path serverDirectory) {
		List<String> directories = new ArrayList<>();
		if (serverDirectory != null) {
			directories.add(serverDirectory.toString());
		}
		directories.addAll(pathDirectories());
		directories.add("/usr/bin");
		Path installer = findExecutable("mariadb-install-db", directories);
		if (installer == null) {
			throw new IllegalStateException("Cannot start a MariaDB server for tests: no mariadb-install-db beside "
					+ "mariadbd, on the PATH or in /usr/bin. Install MariaDB's server package, for example with "
					+ "'apt-get install mariadb-server'");
		}
		return installer;
	}

	private static List<String> pathDirectories() {
		String path = System.getenv("PATH");
		return (path != null) ? List.of(path.split(File.pathSeparator)) : List.of();
	}

	private static @Nullable Path findExecutable(String name, List<String> directories) {
		for (String directory : directories) {
			if (StringUtils.hasText(directory)) {
				Path candidate = Path.of(directory, name);
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		return null;
	}

	/**
	 * How to create the data directory, run {@code mariadbd} and tell that it is ready.
	 */
	private static final class Definition implements ServerProcess.Definition {

		private static final String PID_FILE = "mariadbd.pid";

		private final Path server;

		private final Path installer;

		private final boolean asRoot;

		private volatile @Nullable Path directory;

		Definition(Path server, Path installer, boolean asRoot) {
			this.server = server;
			this.installer = installer;
			this.asRoot = asRoot;
		}

		@Override
		public String name() {
			return "mariadbd";
		}

		@Override
		public List<String> command(Path directory, int port) throws IOException {
			this.directory = directory;
			Path data = directory.resolve("data");
			if (!Files.isDirectory(data.resolve("mysql"))) {
				// A copy of the system tables that the installer made once in this JVM
				DataDirectoryTemplate.copy("mariadb " + this.installer + (this.asRoot ? " as root" : ""),
						this::installTemplate, data);
			}
			Path init = directory.resolve("init.sql");
			Files.writeString(init, INIT_SQL, StandardCharsets.UTF_8);
			List<String> command = new ArrayList<>(List.of(this.server.toString(), "--no-defaults"));
			if (this.asRoot) {
				command.add("--user=root");
			}
			command.addAll(List.of("--datadir=" + data, "--port=" + port, "--bind-address=" + ServerProcess.HOST,
					"--socket=" + directory.resolve("mariadbd.sock"), "--pid-file=" + directory.resolve(PID_FILE),
					"--init-file=" + init, "--skip-name-resolve", "--performance-schema=OFF",
					"--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M", "--innodb-flush-log-at-trx-commit=2",
					"--innodb-doublewrite=0", "--innodb-use-native-aio=0",
					"--innodb-temp-data-file-path=ibtmp1:1M:autoextend", "--max-connections=200",
					"--character-set-server=utf8mb4"));
			return command;
		}

		private void installTemplate(Path directory, Path data) {
			try {
				install(directory, data);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not run " + this.installer, ex);
			}
		}

		private void install(Path directory, Path data) throws IOException {
			List<String> command = new ArrayList<>(
					List.of(this.installer.toString(), "--no-defaults", "--datadir=" + data,
							"--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"));
			if (this.asRoot) {
				command.add("--user=root");
			}
			Process process = new ProcessBuilder(command).directory(directory.toFile())
				.redirectErrorStream(true)
				.start();
			process.getOutputStream().close();
			byte[] output = process.getInputStream().readAllBytes();
			try {
				if (!process.waitFor(INSTALL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
					process.destroyForcibly();
					throw new IllegalStateException(
							"'" + String.join(" ", command) + "' did not end within " + INSTALL_TIMEOUT_SECONDS + " s");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				process.destroyForcibly();
				throw new IllegalStateException("Interrupted while creating MariaDB's data directory", ex);
			}
			if (process.exitValue() != 0) {
				throw new IllegalStateException("'" + String.join(" ", command) + "' failed with exit code "
						+ process.exitValue() + ":\n" + new String(output, StandardCharsets.UTF_8));
			}
		}

		/**
		 * Ready when the pid file names our process and the port greets a client: the
		 * server greets only once it ran the init file. A greeting while the pid file
		 * names no one else means another server answers on the port; ours then fails to
		 * bind it and exits.
		 */
		@Override
		public boolean probe(Process process, int port) throws IOException {
			Long pid = pid(this.directory);
			if (pid == null || pid != process.pid()) {
				return false;
			}
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress(ServerProcess.HOST, port), 200);
				socket.setSoTimeout(200);
				InputStream in = socket.getInputStream();
				byte[] header = in.readNBytes(5);
				// 3 bytes of length, 1 of sequence, then the protocol version 10 of a
				// greeting (0xFF would be an error packet, such as too many connections)
				return header.length == 5 && header[4] == 10;
			}
		}

		@Override
		public boolean isPortTaken(String output) {
			return output.contains("Address already in use") || output.contains("Can't start server: Bind on TCP/IP");
		}

		static @Nullable Long pid(@Nullable Path directory) {
			if (directory == null) {
				return null;
			}
			try {
				return Long.parseLong(Files.readString(directory.resolve(PID_FILE), StandardCharsets.US_ASCII).strip());
			}
			catch (IOException | NumberFormatException ex) {
				return null;
			}
		}

	}

}
