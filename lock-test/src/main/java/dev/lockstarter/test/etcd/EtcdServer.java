package dev.lockstarter.test.etcd;

import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A real etcd server for tests: one member that forms a cluster of its own, on free
 * loopback ports (one for clients, one for peers), with its data in a temporary
 * directory.
 * <p>
 * {@link #start()} finds {@code etcd} in the directory named by the
 * {@value #BIN_PROPERTY} system property, else on the {@code PATH}, in {@code /usr/bin}
 * (Debian's and Ubuntu's {@code etcd-server} package) or {@code /usr/local/bin}, runs it
 * as a child process and returns once it is healthy (it has elected itself leader). etcd
 * runs as root without complaint, as in CI. Its settings are those of every
 * {@link EtcdMember}; {@link EtcdCluster} runs three for failover tests.
 * <p>
 * The server can be {@linkplain #pause() paused} and {@linkplain #resume() resumed},
 * {@linkplain #stop() stopped} or {@linkplain #kill() killed} and {@linkplain #restart()
 * restarted} with the same ports and data. {@link #close()} kills it and deletes the
 * directory; servers still running when the JVM exits are killed by a shutdown hook.
 *
 * <pre class="code">
 * try (EtcdServer etcd = EtcdServer.start()) {
 *     Client client = Client.builder().endpoints(etcd.endpoint()).build();
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see EtcdServerExtension
 */
public final class EtcdServer implements AutoCloseable {

	/**
	 * System property naming the directory of the {@code etcd} binary, instead of
	 * searching for it.
	 */
	public static final String BIN_PROPERTY = "lockstarter.test.etcd.bin";

	private static final Log logger = LogFactory.getLog(EtcdServer.class);

	private final EtcdMember member;

	private EtcdServer(EtcdMember member) {
		this.member = member;
	}

	/**
	 * Start a server on free ports and wait until it is healthy.
	 * @return the running server
	 * @throws IllegalStateException if no {@code etcd} is found, naming what to install,
	 * or if the server is not healthy within 10 seconds
	 */
	public static EtcdServer start() {
		Path binary = EtcdBinary.find("an etcd server");
		long started = System.nanoTime();
		EtcdServer server = new EtcdServer(EtcdMember.startAlone(binary, "lockstarter-" + UUID.randomUUID()));
		if (logger.isDebugEnabled()) {
			logger
				.debug("Started " + server + " in " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
		}
		return server;
	}

	/**
	 * Return the server's client URL, for a client or the store's endpoints.
	 * @return the URL, such as {@code http://127.0.0.1:2379}
	 */
	public String endpoint() {
		return this.member.endpoint();
	}

	/**
	 * Return the server's only member, with its ports, id and directory.
	 * @return the member
	 */
	public EtcdMember member() {
		return this.member;
	}

	/**
	 * Return a client of the server's JSON gateway.
	 * @return the gateway
	 */
	public EtcdGateway gateway() {
		return this.member.gateway();
	}

	/**
	 * Return the server's directory: its data ({@code data}) and its log
	 * ({@code etcd.log}). Deleted on {@link #close()}.
	 * @return the directory
	 */
	public Path directory() {
		return this.member.directory();
	}

	/**
	 * Suspend the server ({@code SIGSTOP}) until {@link #resume()}.
	 * @throws IllegalStateException if the server is not running
	 */
	public void pause() {
		this.member.pause();
	}

	/**
	 * Resume a {@linkplain #pause() paused} server ({@code SIGCONT}). Does nothing if the
	 * server is not paused.
	 */
	public void resume() {
		this.member.resume();
	}

	/**
	 * Stop the server cleanly, keeping its ports and data for {@link #restart()}.
	 * @see EtcdMember#stop()
	 */
	public void stop() {
		this.member.stop();
	}

	/**
	 * Kill the server at once ({@code SIGKILL}), keeping its ports and data for
	 * {@link #restart()}; etcd syncs every write to disk before it acknowledges it, so no
	 * acknowledged write is lost.
	 */
	public void kill() {
		this.member.kill();
	}

	/**
	 * Start the server again with the same ports and data, stopping it first if it runs,
	 * and wait until it is healthy.
	 * @throws IllegalStateException if it cannot be started or is not healthy in time
	 */
	public void restart() {
		this.member.restart();
	}

	/**
	 * Kill the server and delete its directory. Calling it again does nothing.
	 */
	@Override
	public void close() {
		this.member.close();
	}

	@Override
	public String toString() {
		return "EtcdServer[" + this.member + "]";
	}

}
