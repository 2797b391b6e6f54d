package dev.lockstarter.test.dynamodb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;

import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.test.ServerProcess;
import org.springframework.util.Assert;
import org.springframework.util.FileSystemUtils;

/**
 * A real DynamoDB Local server for tests, running in this JVM on a free port.
 * <p>
 * {@link #start()} runs DynamoDB Local ({@code com.amazonaws:DynamoDBLocal}, which must
 * be on the test classpath) in memory; {@link #startPersistent()} keeps its data in a
 * SQLite file in a temporary directory instead, so that it survives a
 * {@linkplain #restart() restart}, as data in DynamoDB itself does. Both use one database
 * for every region and credentials ({@code -sharedDb}) and send no telemetry. DynamoDB
 * Local listens on all network interfaces: it has no option to bind to loopback only.
 * <p>
 * {@link #createClient()} returns a client for it with placeholder credentials; set
 * {@link #endpoint()} and {@value #REGION} on clients built elsewhere.
 *
 * <pre class="code">
 * try (DynamoDbLocalServer dynamoDb = DynamoDbLocalServer.start(); DynamoDbClient client = dynamoDb.createClient()) {
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see DynamoDbLocalServerExtension
 */
public final class DynamoDbLocalServer implements AutoCloseable {

	/** The region of the clients created by {@link #createClient()}. */
	public static final String REGION = "us-east-1";

	private static final Log logger = LogFactory.getLog(DynamoDbLocalServer.class);

	private static final String HOST = "127.0.0.1";

	private static final int PORT_ATTEMPTS = 5;

	private final @Nullable Path directory;

	private final int port;

	private @Nullable DynamoDBProxyServer server;

	private boolean closed;

	private DynamoDbLocalServer(@Nullable Path directory, int port) {
		this.directory = directory;
		this.port = port;
	}

	/**
	 * Start a server that keeps its data in memory: a restart loses it.
	 * @return the running server
	 * @throws IllegalStateException if the server cannot be started
	 */
	public static DynamoDbLocalServer start() {
		return start(false, ServerProcess::freePort);
	}

	/**
	 * Start a server that keeps its data in a file in a temporary directory, deleted by
	 * {@link #close()}: a restart keeps it.
	 * @return the running server
	 * @throws IllegalStateException if the server cannot be started
	 */
	public static DynamoDbLocalServer startPersistent() {
		return start(true, ServerProcess::freePort);
	}

	static DynamoDbLocalServer start(boolean persistent, IntSupplier ports) {
		Path directory = persistent ? createDirectory() : null;
		try {
			for (int attempt = 1;; attempt++) {
				DynamoDbLocalServer server = new DynamoDbLocalServer(directory, ports.getAsInt());
				try {
					server.launch();
					return server;
				}
				catch (PortTakenException ex) {
					if (attempt == PORT_ATTEMPTS) {
						throw new IllegalStateException("Could not start DynamoDB Local: " + PORT_ATTEMPTS
								+ " free ports were taken by other processes before it could bind them", ex);
					}
					logger.debug("Port " + server.port + " was taken before DynamoDB Local could bind it; retrying");
				}
			}
		}
		catch (RuntimeException ex) {
			if (directory != null) {
				FileSystemUtils.deleteRecursively(directory.toFile());
			}
			throw ex;
		}
	}

	/**
	 * Return the host to connect to.
	 * @return {@code 127.0.0.1}
	 */
	public String host() {
		return HOST;
	}

	/**
	 * Return the port the server listens on.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Return the server's endpoint, such as {@code http://127.0.0.1:8000}, for a client's
	 * endpoint override or the {@code lock.dynamodb.endpoint} property.
	 * @return the endpoint
	 */
	public URI endpoint() {
		return URI.create("http://" + HOST + ":" + this.port);
	}

	/**
	 * Return whether the server keeps its data across a {@link #restart()}.
	 * @return {@code true} if started with {@link #startPersistent()}
	 */
	public boolean isPersistent() {
		return this.directory != null;
	}

	/**
	 * Create a client for this server, in region {@value #REGION} with placeholder
	 * credentials. The caller closes it.
	 * @return a new client
	 */
	public DynamoDbClient createClient() {
		return DynamoDbClient.builder()
			.endpointOverride(endpoint())
			.region(Region.of(REGION))
			.credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
			.build();
	}

	/**
	 * Stop the server, keeping its port (and, if persistent, its data) for
	 * {@link #restart()}. Does nothing if the server is already stopped.
	 */
	public synchronized void stop() {
		DynamoDBProxyServer server = this.server;
		if (server == null) {
			return;
		}
		this.server = null;
		try {
			server.stop();
		}
		catch (Exception ex) {
			throw new IllegalStateException("Could not stop DynamoDB Local on port " + this.port, ex);
		}
	}

	/**
	 * Start the server again on the same port, stopping it first if it runs. A server
	 * started in memory is empty again; a persistent one keeps its tables and items.
	 * @throws IllegalStateException if the server cannot be started again, for example
	 * because another process took its port
	 */
	public synchronized void restart() {
		Assert.state(!this.closed, "Cannot restart a closed DynamoDB Local server");
		stop();
		try {
			launch();
		}
		catch (PortTakenException ex) {
			throw new IllegalStateException(
					"Cannot restart DynamoDB Local: another process took port " + this.port + " while it was stopped",
					ex);
		}
	}

	/**
	 * Stop the server and delete its data. Calling it again does nothing.
	 */
	@Override
	public synchronized void close() {
		if (!this.closed) {
			this.closed = true;
			stop();
			if (this.directory != null) {
				FileSystemUtils.deleteRecursively(this.directory.toFile());
			}
		}
	}

	private synchronized void launch() {
		List<String> args = new ArrayList<>(
				List.of("-port", Integer.toString(this.port), "-sharedDb", "-disableTelemetry"));
		if (this.directory != null) {
			args.addAll(List.of("-dbPath", this.directory.toString()));
		}
		else {
			args.add("-inMemory");
		}
		long started = System.nanoTime();
		DynamoDBProxyServer server;
		try {
			server = ServerRunner.createServerFromCommandLineArgs(args.toArray(String[]::new));
			server.start();
		}
		catch (Exception ex) {
			if (isBindFailure(ex)) {
				throw new PortTakenException();
			}
			throw new IllegalStateException("Could not start DynamoDB Local on port " + this.port + ": " + ex, ex);
		}
		this.server = server;
		if (logger.isDebugEnabled()) {
			logger.debug("Started DynamoDB Local on port " + this.port
					+ (isPersistent() ? " in " + this.directory : " in memory") + " in "
					+ Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
		}
	}

	private static boolean isBindFailure(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof BindException) {
				return true;
			}
		}
		return false;
	}

	private static Path createDirectory() {
		try {
			return Files.createTempDirectory("dynamodb-local-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not create a data directory for DynamoDB Local", ex);
		}
	}

	@Override
	public String toString() {
		return "DynamoDbLocalServer[" + HOST + ":" + this.port + (isPersistent() ? ", persistent" : ", in memory")
				+ ((this.server != null) ? "" : ", stopped") + "]";
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
