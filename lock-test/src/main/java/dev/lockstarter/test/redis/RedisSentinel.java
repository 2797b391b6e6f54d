package dev.lockstarter.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;
import org.springframework.util.Assert;

/**
 * A real Redis Sentinel setup for tests: a primary, one replica, and three sentinels that
 * monitor them under the name {@value #MASTER_NAME} with a quorum of two, all on free
 * loopback ports. The sentinels consider the primary down after
 * {@value #DOWN_AFTER_MILLIS} ms without an answer, so a failover completes a few seconds
 * after the primary dies.
 * <p>
 * {@link #start()} returns once the replica is in sync and every sentinel knows the
 * replica and the other sentinels (about two seconds). {@link #primary()} asks the
 * sentinels for the current primary, {@link #awaitFailover(RedisServer, Duration)} waits
 * until they have promoted another server. Its nodes are {@link RedisServer}s, so they
 * can be paused, stopped or sent commands. Redis Sentinel needs a local
 * {@code redis-server}; containers are not used.
 *
 * <pre class="code">
 * try (RedisSentinel sentinel = RedisSentinel.start()) {
 *     RedisSentinelConfiguration configuration = new RedisSentinelConfiguration(RedisSentinel.MASTER_NAME,
 *             Set.copyOf(sentinel.sentinelAddresses()));
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 */
public final class RedisSentinel implements AutoCloseable {

	/** The name under which the sentinels monitor the primary. */
	public static final String MASTER_NAME = "mymaster";

	/** How long a primary must not answer before a sentinel considers it down. */
	public static final int DOWN_AFTER_MILLIS = 1000;

	private static final int SENTINELS = 3;

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);

	private static final Log logger = LogFactory.getLog(RedisSentinel.class);

	private final List<RedisServer> servers;

	private final List<SentinelProcess> sentinels;

	private RedisSentinel(List<RedisServer> servers, List<SentinelProcess> sentinels) {
		this.servers = servers;
		this.sentinels = sentinels;
	}

	/**
	 * Start a primary, a replica of it and three sentinels, and wait until they know each
	 * other.
	 * @return the running setup
	 * @throws IllegalStateException if no local {@code redis-server} is found or the
	 * setup is not ready within 20 seconds
	 */
	public static RedisSentinel start() {
		Path binary = RedisServer.findBinary();
		Assert.state(binary != null,
				"Cannot start Redis Sentinel for tests: no 'redis-server' binary on the PATH. Install Redis, for "
						+ "example with 'apt-get install redis-server', or name the binary with -D"
						+ RedisServer.BINARY_PROPERTY + "=/path/to/redis-server");
		long started = System.nanoTime();
		List<RedisServer> servers = new ArrayList<>();
		List<SentinelProcess> sentinels = new ArrayList<>();
		try {
			// No delay before the replica's first sync (5 s by default)
			String[] replication = { "--repl-diskless-sync-delay", "0" };
			RedisServer primary = RedisServer.start(replication);
			servers.add(primary);
			RedisServer replica = RedisServer.start("--repl-diskless-sync-delay", "0", "--replicaof", primary.host(),
					Integer.toString(primary.port()));
			servers.add(replica);
			awaitReplicaInSync(replica, started);
			// Sentinels that know each other and the replica from the start: no discovery
			List<Integer> ports = new ArrayList<>();
			List<String> ids = new ArrayList<>();
			for (int i = 0; i < SENTINELS; i++) {
				ports.add(ServerProcess.freePort());
				ids.add(UUID.randomUUID().toString().replace("-", "") + String.format("%08x", i));
			}
			for (int i = 0; i < SENTINELS; i++) {
				List<String> known = new ArrayList<>();
				known.add("sentinel known-replica " + MASTER_NAME + " " + replica.host() + " " + replica.port());
				for (int j = 0; j < SENTINELS; j++) {
					if (j != i) {
						known.add("sentinel known-sentinel " + MASTER_NAME + " " + SentinelProcess.HOST + " "
								+ ports.get(j) + " " + ids.get(j));
					}
				}
				sentinels.add(SentinelProcess.start(binary, primary, ports.get(i), ids.get(i), known));
			}
			RedisSentinel setup = new RedisSentinel(List.copyOf(servers), List.copyOf(sentinels));
			setup.awaitReady();
			if (logger.isDebugEnabled()) {
				logger.debug(
						"Started " + setup + " in " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
			}
			return setup;
		}
		catch (RuntimeException ex) {
			sentinels.forEach(SentinelProcess::close);
			servers.forEach(RedisServer::close);
			throw ex;
		}
	}

	/**
	 * Return the sentinels' addresses as {@code host:port}, for
	 * {@code spring.data.redis.sentinel.nodes} or a {@code RedisSentinelConfiguration}.
	 * @return the addresses
	 */
	public List<String> sentinelAddresses() {
		return this.sentinels.stream().map((sentinel) -> SentinelProcess.HOST + ":" + sentinel.port).toList();
	}

	/**
	 * Return the data servers: the initial primary first, then the initial replica.
	 * @return the servers
	 */
	public List<RedisServer> servers() {
		return this.servers;
	}

	/**
	 * Return the server the sentinels currently name as primary.
	 * @return the primary
	 */
	public RedisServer primary() {
		int port = primaryPort();
		return this.servers.stream()
			.filter((server) -> server.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("The sentinels name an unknown primary on port " + port));
	}

	/**
	 * Return a server that is not the current primary.
	 * @return the replica
	 */
	public RedisServer replica() {
		RedisServer primary = primary();
		return this.servers.stream().filter((server) -> server != primary).findFirst().orElseThrow();
	}

	/**
	 * Wait until the sentinels name a primary other than {@code previous} and that server
	 * answers as a primary.
	 * @param previous the primary before the failover
	 * @param timeout the longest time to wait
	 * @return the new primary
	 * @throws IllegalStateException if no failover completes in time
	 */
	public RedisServer awaitFailover(RedisServer previous, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			try {
				RedisServer primary = primary();
				if (primary != previous && String.valueOf(primary.command("ROLE")).startsWith("master")) {
					return primary;
				}
			}
			catch (RuntimeException ex) {
				// A sentinel or the new primary is not answering yet
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The sentinels did not promote a new primary within " + timeout
						+ "; they name " + describePrimaries());
			}
			sleep(50);
		}
	}

	/**
	 * Send one command to the first sentinel that answers, see
	 * {@link RedisServer#command}.
	 * @param args the command and its arguments
	 * @return the reply
	 */
	public @Nullable String sentinelCommand(String... args) {
		RuntimeException failure = null;
		for (SentinelProcess sentinel : this.sentinels) {
			try {
				return sentinel.command(args);
			}
			catch (RuntimeException ex) {
				failure = ex;
			}
		}
		throw (failure != null) ? failure : new IllegalStateException("No sentinel");
	}

	/**
	 * End the sentinels, then the servers. Calling it again does nothing.
	 */
	@Override
	public void close() {
		this.sentinels.forEach(SentinelProcess::close);
		this.servers.forEach(RedisServer::close);
	}

	@Override
	public String toString() {
		return "RedisSentinel[servers " + this.servers + ", sentinels " + sentinelAddresses() + "]";
	}

	private int primaryPort() {
		String reply = sentinelCommand("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
		Assert.state(reply != null, "The sentinels know no primary named " + MASTER_NAME);
		return Integer.parseInt(reply.split("\n")[1].strip());
	}

	private String describePrimaries() {
		List<String> named = new ArrayList<>();
		for (SentinelProcess sentinel : this.sentinels) {
			try {
				named.add(String.valueOf(sentinel.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME))
					.replace('\n', ':'));
			}
			catch (RuntimeException ex) {
				named.add(ex.getMessage());
			}
		}
		return named.toString();
	}

	private static void awaitReplicaInSync(RedisServer replica, long started) {
		long deadline = started + STARTUP_TIMEOUT.toNanos();
		while (!String.valueOf(replica.command("INFO", "replication")).contains("master_link_status:up")) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The replica did not sync within " + STARTUP_TIMEOUT.toSeconds()
						+ " s: " + replica.command("INFO", "replication"));
			}
			sleep(20);
		}
	}

	private void awaitReady() {
		long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
		while (!isReady()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(
						"Redis Sentinel setup was not ready within " + STARTUP_TIMEOUT.toSeconds() + " s: replica "
								+ this.servers.get(1).command("INFO", "replication") + ", sentinel "
								+ this.sentinels.get(0).command("SENTINEL", "MASTER", MASTER_NAME));
			}
			sleep(50);
		}
		awaitReplicaAcknowledging(deadline);
	}

	/**
	 * Wait until the replica has acknowledged a write. After a diskless sync the primary
	 * holds the command stream back until the replica's first acknowledgement, which
	 * replicas send once a second: until then the replica reports its link up, and the
	 * primary lists it online, but a {@code WAIT} for it times out.
	 */
	private void awaitReplicaAcknowledging(long deadline) {
		RedisServer primary = this.servers.get(0);
		primary.command("SET", "sentinel-setup:ready", "1");
		long written = replicationOffset(primary.command("INFO", "replication"), "master_repl_offset:");
		while (replicationOffset(primary.command("INFO", "replication"), ",offset=") < written) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The replica did not acknowledge a write within "
						+ STARTUP_TIMEOUT.toSeconds() + " s: " + primary.command("INFO", "replication"));
			}
			sleep(20);
		}
	}

	private static long replicationOffset(@Nullable String info, String field) {
		if (info == null) {
			return -1;
		}
		int at = info.indexOf(field);
		if (at < 0) {
			return -1;
		}
		int from = at + field.length();
		int to = from;
		while (to < info.length() && Character.isDigit(info.charAt(to))) {
			to++;
		}
		return (to > from) ? Long.parseLong(info.substring(from, to)) : -1;
	}

	private boolean isReady() {
		String replication = this.servers.get(1).command("INFO", "replication");
		if (replication == null || !replication.contains("master_link_status:up")) {
			return false;
		}
		for (SentinelProcess sentinel : this.sentinels) {
			String master = sentinel.command("SENTINEL", "MASTER", MASTER_NAME);
			if (master == null || !master.contains("num-slaves\n1\n")
					|| !master.contains("num-other-sentinels\n" + (SENTINELS - 1) + "\n")) {
				return false;
			}
		}
		return true;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for Redis Sentinel", ex);
		}
	}

	/**
	 * A {@code redis-server --sentinel} child process with its own configuration file,
	 * which the sentinel rewrites as it learns the topology.
	 */
	private static final class SentinelProcess {

		static final String HOST = ServerProcess.HOST;

		private final ServerProcess process;

		private final int port;

		private SentinelProcess(ServerProcess process) {
			this.process = process;
			this.port = process.port();
		}

		static SentinelProcess start(Path binary, RedisServer primary, int port, String id, List<String> known) {
			// The other sentinels know this one's port: no other port can be tried
			return new SentinelProcess(ServerProcess.start(new Definition(binary, primary, id, known), () -> port));
		}

		@Nullable String command(String... args) {
			try {
				return Resp.send(HOST, this.port, COMMAND_TIMEOUT, args);
			}
			catch (Resp.ErrorReplyException ex) {
				throw new IllegalStateException("Sentinel at " + HOST + ":" + this.port + " answered " + args[0]
						+ " with '" + ex.getMessage() + "'");
			}
			catch (IOException ex) {
				throw new UncheckedIOException(
						"Sentinel at " + HOST + ":" + this.port + " did not answer " + args[0] + ": " + ex.getMessage(),
						ex);
			}
		}

		void close() {
			this.process.close();
		}

	}

	/**
	 * How to run a sentinel and tell that it is ready.
	 */
	private record Definition(Path binary, RedisServer primary, String id,
			List<String> known) implements ServerProcess.Definition {

		@Override
		public String name() {
			return "redis-sentinel";
		}

		@Override
		public List<String> command(Path directory, int port) throws IOException {
			List<String> configuration = new ArrayList<>(
					List.of("port " + port, "bind " + ServerProcess.HOST, "protected-mode no", "daemonize no",
							"dir " + directory, "sentinel myid " + this.id,
							"sentinel monitor " + MASTER_NAME + " " + this.primary.host() + " " + this.primary.port()
									+ " 2",
							"sentinel down-after-milliseconds " + MASTER_NAME + " " + DOWN_AFTER_MILLIS,
							"sentinel failover-timeout " + MASTER_NAME + " 3000",
							"sentinel parallel-syncs " + MASTER_NAME + " 1"));
			configuration.addAll(this.known);
			configuration.add("");
			Path file = directory.resolve("sentinel.conf");
			Files.writeString(file, String.join("\n", configuration), StandardCharsets.UTF_8);
			return List.of(this.binary.toString(), file.toString(), "--sentinel");
		}

		@Override
		public boolean probe(Process process, int port) throws IOException {
			try {
				return "PONG".equals(Resp.send(ServerProcess.HOST, port, Duration.ofMillis(200), "PING"));
			}
			catch (Resp.ErrorReplyException ex) {
				return false;
			}
		}

	}

}
