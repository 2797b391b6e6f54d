package dev.lockstarter.test.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntSupplier;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;
import dev.lockstarter.test.fault.MemberHost;
import dev.lockstarter.test.fault.NamespaceNetwork;
import dev.lockstarter.test.zookeeper.ZooKeeperServer.Mode;
import org.springframework.util.Assert;

/**
 * A real ZooKeeper ensemble for tests: three {@link ZooKeeperServer} processes, each with
 * a client, a quorum and an election port on free loopback ports, for failover tests.
 * <p>
 * {@link #start()} starts the servers (see {@link ZooKeeperServer} for where ZooKeeper is
 * found and how it is configured) one after the other and waits until one reports itself
 * the leader and the other two followers, about two seconds in all. A leader that dies is
 * noticed by its followers at once, as its connections close; one that is
 * {@linkplain ZooKeeperServer#pause() paused} after {@link #LEADER_TIMEOUT}, the
 * {@code syncLimit} of 5 ticks of 200 ms. The two others then elect a new leader among
 * themselves; {@link #awaitLeader(Duration)} waits for it. A killed server
 * {@linkplain ZooKeeperServer#restart() restarted}, or a paused one resumed, rejoins as a
 * follower; {@link #awaitFormed(Duration)} waits for that, and {@link #heal(Duration)}
 * undoes every fault and waits too. Started {@linkplain #start(NamespaceNetwork) on a
 * network of namespaces}, a server can also be cut off from the others by the network,
 * see {@link NamespaceNetwork#isolate(int)}: a leader then gives up after
 * {@link #LEADER_TIMEOUT} without a quorum.
 * <p>
 * {@link #close()} kills every server and deletes their directories.
 *
 * <pre class="code">
 * try (ZooKeeperEnsemble ensemble = ZooKeeperEnsemble.start()) {
 *     CuratorFramework client = CuratorFrameworkFactory.newClient(ensemble.connectString(), retryPolicy);
 *     ...
 *     ensemble.leader().kill();
 *     ZooKeeperServer newLeader = ensemble.awaitLeader(Duration.ofSeconds(10));
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see ZooKeeperEnsembleExtension
 */
public final class ZooKeeperEnsemble implements AutoCloseable {

	/** The number of servers. */
	public static final int SIZE = 3;

	/**
	 * How long followers wait for a paused leader before they elect another
	 * ({@code syncLimit} × {@code tickTime}); a pause must last longer than this to cost
	 * the leader its place.
	 */
	public static final Duration LEADER_TIMEOUT = Duration
		.ofMillis((long) ZooKeeperServer.SYNC_LIMIT * ZooKeeperServer.TICK_TIME_MILLIS);

	private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(30);

	private static final Log logger = LogFactory.getLog(ZooKeeperEnsemble.class);

	private final List<ZooKeeperServer> servers;

	private ZooKeeperEnsemble(List<ZooKeeperServer> servers) {
		this.servers = List.copyOf(servers);
	}

	/**
	 * Start three servers and wait until one leads and the two others follow it.
	 * @return the running ensemble
	 * @throws IllegalStateException if ZooKeeper is not installed (the message says what
	 * to install), or the ensemble does not form within 30 seconds
	 */
	public static ZooKeeperEnsemble start() {
		return start(null);
	}

	/**
	 * Start three servers, the server with id {@code n} on the host {@code n - 1} of a
	 * network, and wait until one leads and the two others follow it. Clients reach the
	 * servers on the hosts' client addresses; the servers talk to each other on the peer
	 * addresses, so that {@link NamespaceNetwork#isolate(int) isolating} a host cuts its
	 * server off from the others and not from its clients.
	 * @param network a network of at least three hosts, or {@code null} for loopback
	 * @return the running ensemble
	 * @throws IllegalStateException if ZooKeeper is not installed (the message says what
	 * to install), or the ensemble does not form within 30 seconds
	 */
	public static ZooKeeperEnsemble start(@Nullable NamespaceNetwork network) {
		Assert.isTrue(network == null || network.size() >= SIZE,
				() -> "A ZooKeeper ensemble needs a network of at least " + SIZE + " hosts");
		ZooKeeperInstallation installation = ZooKeeperInstallation.find();
		long started = System.nanoTime();
		// The quorum and election ports are fixed in every server's zoo.cfg; the client
		// ports, in each server's own only, may change if another process takes one
		Set<Integer> taken = new HashSet<>();
		List<MemberHost> hosts = new ArrayList<>();
		List<String> lines = new ArrayList<>();
		for (int id = 1; id <= SIZE; id++) {
			hosts.add(MemberHost.of(network, id - 1));
			lines.add("server." + id + "=" + hosts.get(id - 1).peerAddress() + ":" + freePort(taken) + ":"
					+ freePort(taken));
		}
		IntSupplier clientPorts = () -> freePort(taken);
		List<ZooKeeperServer> servers = new ArrayList<>();
		try {
			for (int id = 1; id <= SIZE; id++) {
				servers.add(ZooKeeperServer.startMember(installation, id, lines, clientPorts, hosts.get(id - 1)));
			}
			ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(servers);
			ensemble.awaitFormed(FORMATION_TIMEOUT);
			if (logger.isDebugEnabled()) {
				logger.debug("Started " + ensemble + " in " + Duration.ofNanos(System.nanoTime() - started).toMillis()
						+ " ms");
			}
			return ensemble;
		}
		catch (RuntimeException ex) {
			servers.forEach(ZooKeeperServer::close);
			throw ex;
		}
	}

	/**
	 * Return the servers, in the order of their ids: the first has id 1.
	 * @return the servers
	 */
	public List<ZooKeeperServer> servers() {
		return this.servers;
	}

	/**
	 * Return a server by its index in {@link #servers()}.
	 * @param index the index, from 0 to 2; the server's id is one more
	 * @return the server
	 */
	public ZooKeeperServer server(int index) {
		Assert.isTrue(index >= 0 && index < SIZE,
				() -> "No server " + index + ": the indexes go from 0 to " + (SIZE - 1));
		return this.servers.get(index);
	}

	/**
	 * Return the client addresses of every server, for a ZooKeeper or Curator client.
	 * @return {@code 127.0.0.1:<port>,127.0.0.1:<port>,127.0.0.1:<port>}
	 */
	public String connectString() {
		return this.servers.stream().map(ZooKeeperServer::connectString).collect(Collectors.joining(","));
	}

	/**
	 * Return the leader, as the servers report it now.
	 * @return the only running server, not paused, that reports itself the leader
	 * @throws IllegalStateException if none does, or more than one
	 */
	public ZooKeeperServer leader() {
		List<ZooKeeperServer> leaders = reportingLeader();
		Assert.state(leaders.size() == 1, () -> "The ensemble has " + leaders.size() + " leaders:" + describe());
		return leaders.get(0);
	}

	/**
	 * Wait until exactly one of the running servers that are not paused reports itself
	 * the leader, for example after the leader was killed or paused. A server reports
	 * itself the leader only once a quorum follows it, so the ensemble then serves.
	 * @param timeout the longest time to wait
	 * @return the leader
	 * @throws IllegalStateException if there is not one leader in time
	 */
	public ZooKeeperServer awaitLeader(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		return await("one leader", timeout, () -> {
			List<ZooKeeperServer> leaders = reportingLeader();
			return (leaders.size() == 1) ? leaders.get(0) : null;
		});
	}

	/**
	 * Wait until every running server that is not paused serves: one leads and the others
	 * follow, for example after a killed server was restarted.
	 * @param timeout the longest time to wait
	 * @return the leader
	 * @throws IllegalStateException if the ensemble does not form in time
	 */
	public ZooKeeperServer awaitFormed(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		return await("one leader and every other server following", timeout, () -> {
			ZooKeeperServer leader = null;
			for (ZooKeeperServer server : reachable()) {
				Mode mode = server.mode();
				if (mode == Mode.LEADER && leader == null) {
					leader = server;
				}
				else if (mode != Mode.FOLLOWER) {
					return null;
				}
			}
			return leader;
		});
	}

	/**
	 * Undo every fault: resume the paused servers, restart the stopped and killed ones,
	 * and wait until the ensemble has formed again with all three.
	 * @param timeout the longest time to wait for the ensemble to form
	 * @return the leader
	 * @throws IllegalStateException if the ensemble does not form in time
	 */
	public ZooKeeperServer heal(Duration timeout) {
		for (ZooKeeperServer server : this.servers) {
			if (!server.isRunning()) {
				server.restart();
			}
			else if (server.isPaused()) {
				server.resume();
			}
		}
		return awaitFormed(timeout);
	}

	/**
	 * Kill every server and delete their directories. Calling it again does nothing.
	 */
	@Override
	public void close() {
		this.servers.forEach(ZooKeeperServer::close);
	}

	@Override
	public String toString() {
		return "ZooKeeperEnsemble[" + connectString() + "]";
	}

	private List<ZooKeeperServer> reachable() {
		return this.servers.stream().filter((server) -> server.isRunning() && !server.isPaused()).toList();
	}

	private List<ZooKeeperServer> reportingLeader() {
		List<ZooKeeperServer> leaders = new ArrayList<>();
		for (ZooKeeperServer server : reachable()) {
			try {
				if (server.mode() == Mode.LEADER) {
					leaders.add(server);
				}
			}
			catch (IllegalStateException ex) {
				// Paused or stopped meanwhile, or too slow to answer: not a leader now
			}
		}
		return leaders;
	}

	private ZooKeeperServer await(String condition, Duration timeout, Attempt attempt) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			try {
				ZooKeeperServer leader = attempt.leader();
				if (leader != null) {
					return leader;
				}
			}
			catch (IllegalStateException ex) {
				// A server did not answer: not yet
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("ZooKeeper ensemble did not reach " + condition + " within "
						+ timeout.toMillis() + " ms:" + describe());
			}
			ZooKeeperServer.pollPause();
		}
	}

	private String describe() {
		StringBuilder state = new StringBuilder();
		for (ZooKeeperServer server : this.servers) {
			state.append('\n').append(server).append(": ");
			if (!server.isRunning()) {
				state.append("not running");
			}
			else if (server.isPaused()) {
				state.append("paused");
			}
			else {
				try {
					state.append(server.mode());
				}
				catch (IllegalStateException ex) {
					state.append(ex.getMessage());
				}
			}
			state.append(" (log: ").append(server.directory().resolve("zookeeper-" + server.id() + ".log")).append(')');
		}
		return state.toString();
	}

	private static int freePort(Set<Integer> taken) {
		synchronized (taken) {
			while (true) {
				int port = ServerProcess.freePort();
				if (taken.add(port)) {
					return port;
				}
			}
		}
	}

	@FunctionalInterface
	private interface Attempt {

		@Nullable ZooKeeperServer leader();

	}

}
