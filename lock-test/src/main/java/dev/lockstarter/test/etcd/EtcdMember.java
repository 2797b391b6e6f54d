package dev.lockstarter.test.etcd;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;
import dev.lockstarter.test.fault.MemberHost;
import dev.lockstarter.test.fault.NamespaceNetwork;

/**
 * One {@code etcd} process: the only member of an {@link EtcdServer}, or one of the three
 * of an {@link EtcdCluster}. It listens on loopback, or on its host's addresses in a
 * {@link NamespaceNetwork}, for clients ({@linkplain #endpoint() its client URL}, which
 * also serves the v3 JSON gateway) and for its peers, and keeps its data in its own
 * temporary directory.
 * <p>
 * Every member runs with a heartbeat of {@link #HEARTBEAT_INTERVAL} and an election
 * timeout of {@link #ELECTION_TIMEOUT} (etcd waits a random time between one and two
 * timeouts before it campaigns): a failover takes about half a second to a second, inside
 * a client's timeout of a few seconds, while the ten heartbeats per timeout keep a busy
 * machine from starting needless elections. Pre-vote is on (etcd's default from 3.5), so
 * that a member cut off from the others does not raise the term and depose a healthy
 * leader when it comes back.
 * <p>
 * A member can be {@linkplain #pause() paused} ({@code SIGSTOP}) and
 * {@linkplain #resume() resumed}, {@linkplain #stop() stopped} or {@linkplain #kill()
 * killed} and {@linkplain #restart() restarted} with the same ports and data, after which
 * it rejoins its cluster.
 *
 * @since 0.1.0
 */
public final class EtcdMember {

	/** How often a leader sends heartbeats ({@code --heartbeat-interval}). */
	public static final Duration HEARTBEAT_INTERVAL = Duration.ofMillis(50);

	/**
	 * How long a follower hears nothing from the leader before it may campaign
	 * ({@code --election-timeout}); etcd adds a random delay of up to the same again.
	 */
	public static final Duration ELECTION_TIMEOUT = Duration.ofMillis(500);

	/** How long a started or restarted member may take to become healthy. */
	static final Duration READY_TIMEOUT = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(EtcdMember.class);

	private final ServerProcess process;

	private final Definition definition;

	private final EtcdGateway gateway;

	private volatile long id;

	private volatile boolean paused;

	private volatile boolean stopped;

	private EtcdMember(ServerProcess process, Definition definition) {
		this.process = process;
		this.definition = definition;
		this.gateway = new EtcdGateway(url(definition.host.clientAddress(), process.port()));
	}

	/**
	 * Start a member that forms a cluster of its own, on free ports, and wait until it is
	 * healthy.
	 */
	static EtcdMember startAlone(Path binary, String token) {
		Definition definition = new Definition(binary, "etcd", token, null, MemberHost.loopback());
		return new EtcdMember(ServerProcess.start(definition, ServerProcess::freePort), definition);
	}

	/**
	 * Start a member of a cluster on the given ports, on loopback or on a host of a
	 * network, and wait until it listens for its peers: it serves clients only once the
	 * cluster has a leader.
	 */
	static EtcdMember startInCluster(Path binary, String name, String token, int clientPort, int peerPort,
			String initialCluster, MemberHost host) {
		Definition definition = new Definition(binary, name, token, initialCluster, host);
		definition.peerPort = peerPort;
		definition.clientPort = clientPort;
		// The other members know these ports: no others can be tried
		return new EtcdMember(ServerProcess.start(definition, () -> clientPort), definition);
	}

	/**
	 * Return the member's name ({@code --name}).
	 * @return the name
	 */
	public String name() {
		return this.definition.name;
	}

	/**
	 * Return the member's id, as etcd reports it in statuses and as a leader.
	 * @return the id
	 * @throws IllegalStateException if the id is not known yet and the member does not
	 * answer
	 */
	public long id() {
		long known = this.id;
		if (known == 0) {
			known = this.gateway.status().memberId();
			this.id = known;
		}
		return known;
	}

	/**
	 * Return the member's id if it is known, without asking the member.
	 */
	long knownId() {
		return this.id;
	}

	/**
	 * Remember the id the member reported in a status.
	 */
	void remember(long id) {
		if (id != 0) {
			this.id = id;
		}
	}

	/**
	 * Return the member's client URL, the endpoint of clients and of the JSON gateway.
	 * @return the URL, such as {@code http://127.0.0.1:2379}
	 */
	public String endpoint() {
		return url(this.definition.host.clientAddress(), this.process.port());
	}

	/**
	 * Return the port the member serves clients on, also after a restart.
	 * @return the port
	 */
	public int clientPort() {
		return this.process.port();
	}

	/**
	 * Return the port the member talks to its peers on, also after a restart.
	 * @return the port
	 */
	public int peerPort() {
		return this.definition.peerPort;
	}

	/**
	 * Return the member's directory: its data ({@code data}) and its log
	 * ({@code etcd.log}). Deleted when the server or cluster is closed.
	 * @return the directory
	 */
	public Path directory() {
		return this.process.directory();
	}

	/**
	 * Return a client of the member's JSON gateway.
	 * @return the gateway
	 */
	public EtcdGateway gateway() {
		return this.gateway;
	}

	/**
	 * Return whether the member reports itself healthy: it knows a leader and serves a
	 * linearizable read. A paused or stopped member is not healthy.
	 * @return whether the member is healthy
	 */
	public boolean isHealthy() {
		return isRunning() && this.gateway.isHealthy();
	}

	/**
	 * Return whether the process runs: started, and neither paused nor stopped.
	 * @return whether the member runs
	 */
	public boolean isRunning() {
		return !this.paused && !this.stopped;
	}

	/**
	 * Suspend the member ({@code SIGSTOP}): it neither answers clients nor talks to its
	 * peers until {@link #resume()}. Paused for longer than the election timeout, a
	 * leader is replaced; resumed, it finds a newer term and follows.
	 * @throws IllegalStateException if the member is not running
	 */
	public void pause() {
		this.process.pause();
		this.paused = true;
	}

	/**
	 * Resume a {@linkplain #pause() paused} member ({@code SIGCONT}). Does nothing if the
	 * member is not paused.
	 */
	public void resume() {
		this.process.resume();
		this.paused = false;
	}

	/**
	 * Stop the member ({@code SIGTERM}, a clean shutdown; {@code SIGKILL} if it has not
	 * ended within 5 seconds), keeping its ports and data for {@link #restart()}. Does
	 * nothing if it is stopped.
	 */
	public void stop() {
		this.process.stop();
		this.paused = false;
		this.stopped = true;
	}

	/**
	 * Kill the member at once ({@code SIGKILL}), as a crash would, keeping its ports and
	 * data for {@link #restart()}. Does nothing if it is stopped.
	 */
	public void kill() {
		this.process.kill();
		this.paused = false;
		this.stopped = true;
	}

	/**
	 * Start the member again with the same ports and data, stopping it first if it runs,
	 * and wait until it is healthy: it has rejoined its cluster, which needs a majority
	 * of the members running.
	 * @throws IllegalStateException if the member cannot be started or is not healthy
	 * within 30 seconds
	 */
	public void restart() {
		long started = System.nanoTime();
		relaunch();
		awaitHealthy(READY_TIMEOUT);
		if (logger.isDebugEnabled()) {
			logger.debug("Restarted " + this + ", healthy in "
					+ Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
		}
	}

	/**
	 * Start the member again with the same ports and data, stopping it first if it runs,
	 * without waiting until it has rejoined: with a majority down, it can only once
	 * another is back.
	 */
	void relaunch() {
		this.process.restart();
		this.paused = false;
		this.stopped = false;
	}

	/**
	 * Wait until the member is healthy.
	 * @param timeout the longest time to wait
	 * @throws IllegalStateException if it is not healthy in time
	 */
	void awaitHealthy(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!isHealthy()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(this + " was not healthy within " + timeout.toSeconds() + " s");
			}
			sleep(20);
		}
	}

	/**
	 * Kill the member and delete its directory. Calling it again does nothing.
	 */
	void close() {
		this.process.kill();
		this.process.close();
		this.stopped = true;
	}

	@Override
	public String toString() {
		return "etcd member " + this.definition.name + " (" + this.process + ", peer port " + this.definition.peerPort
				+ ")";
	}

	static String url(String host, int port) {
		return "http://" + host + ":" + port;
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for etcd", ex);
		}
	}

	/**
	 * How to run a member and tell that it is ready. A member alone forms its own cluster
	 * and is ready when it is healthy; it takes a new peer port with every client port
	 * {@link ServerProcess} tries. A member of a cluster is ready when it listens for its
	 * peers, as it serves clients only once a majority has started.
	 */
	private static final class Definition implements ServerProcess.Definition {

		private static final HttpClient probeClient = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofMillis(200))
			.build();

		private final Path binary;

		private final String name;

		private final String token;

		private final @Nullable String initialCluster;

		private final MemberHost host;

		private volatile int clientPort;

		private volatile int peerPort;

		Definition(Path binary, String name, String token, @Nullable String initialCluster, MemberHost host) {
			this.binary = binary;
			this.name = name;
			this.token = token;
			this.initialCluster = initialCluster;
			this.host = host;
		}

		@Override
		public String name() {
			return "etcd";
		}

		@Override
		public String host() {
			return this.host.clientAddress();
		}

		@Override
		public List<String> command(Path directory, int port) {
			if (this.initialCluster == null && port != this.clientPort) {
				this.peerPort = ServerProcess.freePort();
			}
			this.clientPort = port;
			String peerUrl = url(this.host.peerAddress(), this.peerPort);
			String clientUrl = url(this.host.clientAddress(), port);
			String initialCluster = (this.initialCluster != null) ? this.initialCluster : this.name + "=" + peerUrl;
			// With data from an earlier start, etcd ignores the --initial-* flags
			List<String> command = new ArrayList<>(List.of(this.binary.toString(), "--name", this.name, "--data-dir",
					directory.resolve("data").toString(), "--listen-client-urls", clientUrl, "--advertise-client-urls",
					clientUrl, "--listen-peer-urls", peerUrl, "--initial-advertise-peer-urls", peerUrl,
					"--initial-cluster", initialCluster, "--initial-cluster-state", "new", "--initial-cluster-token",
					this.token, "--heartbeat-interval", Long.toString(HEARTBEAT_INTERVAL.toMillis()),
					"--election-timeout", Long.toString(ELECTION_TIMEOUT.toMillis()), "--pre-vote=true", "--logger",
					"zap", "--log-outputs", "stderr"));
			return this.host.command(command);
		}

		@Override
		public boolean probe(Process process, int port) throws IOException {
			if (this.initialCluster == null) {
				return new EtcdGateway(url(this.host.clientAddress(), port), Duration.ofSeconds(1)).isHealthy();
			}
			HttpRequest request = HttpRequest
				.newBuilder(URI.create(url(this.host.peerAddress(), this.peerPort) + "/version"))
				.timeout(Duration.ofSeconds(1))
				.build();
			try {
				HttpResponse<String> response = probeClient.send(request, HttpResponse.BodyHandlers.ofString());
				return response.statusCode() == 200 && response.body().contains("etcdserver");
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IOException("Interrupted", ex);
			}
		}

		@Override
		public boolean isPortTaken(String output) {
			return output.contains("address already in use");
		}

	}

}
