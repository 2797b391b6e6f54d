package dev.lockstarter.test.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;
import dev.lockstarter.test.redis.ClusterNodes.Node;
import org.springframework.util.Assert;

/**
 * A real Redis Cluster for tests: three {@code redis-server} processes with cluster mode
 * on, each a master of a third of the 16384 hash slots, listening on free loopback ports
 * (with their cluster bus on free ports too); without replicas ({@link #start()}), or
 * with one replica per master ({@link #startWithReplicas()}) for failover tests.
 * <p>
 * {@link #start()} starts the nodes (see {@link RedisServer} for how a binary is found),
 * assigns the slots, introduces the nodes to each other ({@code CLUSTER MEET}) and waits
 * until every node reports {@code cluster_state:ok} and knows every other, about two
 * seconds in all. {@link #startWithReplicas()} also makes each of three more nodes the
 * replica of one master ({@code CLUSTER REPLICATE}) and waits until every replica is in
 * sync. Its nodes consider a master that does not answer for
 * {@value #FAILOVER_NODE_TIMEOUT_MILLIS} ms failing, so a failover completes a few
 * seconds after a master dies; {@link #killMaster(RedisServer, Duration)} kills one and
 * waits until the cluster has promoted its replica and the killed node serves again, as
 * the replica of the new master. Redis Cluster needs a local {@code redis-server};
 * containers are not used.
 * <p>
 * Close the clients of the cluster before {@link #close()}, which ends every node.
 *
 * <pre class="code">
 * try (RedisCluster cluster = RedisCluster.start()) {
 *     RedisClusterConfiguration configuration = new RedisClusterConfiguration(cluster.nodeAddresses());
 *     LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see RedisClusterExtension
 */
public final class RedisCluster implements AutoCloseable {

	/** The number of hash slots of a Redis Cluster. */
	public static final int SLOTS = 16384;

	/**
	 * The {@code cluster-node-timeout} of a cluster with replicas: how long a master must
	 * not answer before the other nodes consider it failing.
	 */
	public static final int FAILOVER_NODE_TIMEOUT_MILLIS = 1000;

	private static final int MASTERS = 3;

	private static final int NODE_TIMEOUT_MILLIS = 5000;

	private static final String CONFIG_FILE = "nodes.conf";

	private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(20);

	private static final Log logger = LogFactory.getLog(RedisCluster.class);

	private final List<RedisServer> nodes;

	private final List<Integer> busPorts;

	private RedisCluster(List<RedisServer> nodes, List<Integer> busPorts) {
		this.nodes = List.copyOf(nodes);
		this.busPorts = List.copyOf(busPorts);
	}

	/**
	 * Start a cluster of three masters without replicas and wait until it serves every
	 * slot.
	 * @return the running cluster
	 * @throws IllegalStateException if no local {@code redis-server} is found, or the
	 * cluster does not form within 20 seconds
	 */
	public static RedisCluster start() {
		return start(false);
	}

	/**
	 * Start a cluster of three masters with one replica each and wait until it serves
	 * every slot and every replica is in sync. Its nodes consider a master failing after
	 * {@value #FAILOVER_NODE_TIMEOUT_MILLIS} ms without an answer, and a replica takes
	 * over however long its link to the master has been down.
	 * @return the running cluster
	 * @throws IllegalStateException if no local {@code redis-server} is found, or the
	 * cluster does not form within 20 seconds
	 */
	public static RedisCluster startWithReplicas() {
		return start(true);
	}

	private static RedisCluster start(boolean withReplicas) {
		Assert.state(RedisServer.findBinary() != null,
				"Cannot start a Redis Cluster for tests: no 'redis-server' binary on the PATH. Install Redis, for "
						+ "example with 'apt-get install redis-server', or name the binary with -D"
						+ RedisServer.BINARY_PROPERTY + "=/path/to/redis-server");
		long started = System.nanoTime();
		List<RedisServer> nodes = new ArrayList<>();
		List<Integer> busPorts = new ArrayList<>();
		try {
			for (int i = 0; i < (withReplicas ? 2 * MASTERS : MASTERS); i++) {
				int busPort = ServerProcess.freePort();
				List<String> args = new ArrayList<>(List.of("--cluster-enabled", "yes", "--cluster-config-file",
						CONFIG_FILE, "--cluster-port", Integer.toString(busPort), "--cluster-node-timeout",
						Integer.toString(withReplicas ? FAILOVER_NODE_TIMEOUT_MILLIS : NODE_TIMEOUT_MILLIS)));
				if (withReplicas) {
					// No delay before a replica's first sync (5 s by default)
					args.addAll(List.of("--repl-diskless-sync-delay", "0", "--cluster-replica-validity-factor", "0"));
				}
				nodes.add(RedisServer.start(args.toArray(String[]::new)));
				busPorts.add(busPort);
			}
			RedisCluster cluster = new RedisCluster(nodes, busPorts);
			cluster.form();
			if (logger.isDebugEnabled()) {
				logger.debug("Started " + cluster + " in " + Duration.ofNanos(System.nanoTime() - started).toMillis()
						+ " ms");
			}
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(RedisServer::close);
			throw ex;
		}
	}

	/**
	 * Return the nodes: the three masters the cluster started with, in the order of their
	 * slot ranges (the first served slots 0 to 5460), then, with replicas, the replica of
	 * each in the same order. A failover swaps the roles of a master and its replica:
	 * {@link #nodeFor(String)} and {@link #replicaOf(RedisServer)} ask the cluster.
	 * @return the nodes
	 */
	public List<RedisServer> nodes() {
		return this.nodes;
	}

	/**
	 * Return the addresses of the nodes as {@code host:port}, for
	 * {@code spring.data.redis.cluster.nodes} or a {@code RedisClusterConfiguration}.
	 * @return the addresses
	 */
	public List<String> nodeAddresses() {
		return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/**
	 * Return the hash slot of a key, as the cluster computes it
	 * ({@code CLUSTER KEYSLOT}).
	 * @param key the key
	 * @return the slot, from 0 to 16383
	 */
	public int keySlot(String key) {
		String slot = anyNodeCommand("CLUSTER", "KEYSLOT", key);
		Assert.state(slot != null, "CLUSTER KEYSLOT answered nil");
		return Integer.parseInt(slot);
	}

	/**
	 * Return the master that serves a key's slot.
	 * @param key the key
	 * @return the node
	 */
	public RedisServer nodeFor(String key) {
		return nodeForSlot(keySlot(key));
	}

	/**
	 * Return the master that serves a slot, as the first node that answers sees it.
	 * @param slot the slot
	 * @return the node
	 */
	public RedisServer nodeForSlot(int slot) {
		Assert.isTrue(slot >= 0 && slot < SLOTS, () -> "Not a hash slot: " + slot);
		Node owner = ClusterNodes.parse(anyNodeCommand("CLUSTER", "NODES")).ownerOf(slot);
		Assert.state(owner != null, () -> "No node serves slot " + slot);
		return node(owner.port());
	}

	/**
	 * Return the replica of a master, as the first node that answers sees it.
	 * @param master the master
	 * @return the replica, or {@code null} if the master has none
	 */
	public @Nullable RedisServer replicaOf(RedisServer master) {
		ClusterNodes view = ClusterNodes.parse(anyNodeCommand("CLUSTER", "NODES"));
		Node node = view.at(master.port());
		Node replica = (node != null) ? view.replicaOf(node.id()) : null;
		return (replica != null) ? node(replica.port()) : null;
	}

	/**
	 * Send one command to the node that serves a key, see {@link RedisServer#command}.
	 * @param key the key that picks the node
	 * @param args the command and its arguments
	 * @return the reply
	 */
	public @Nullable String command(String key, String... args) {
		return nodeFor(key).command(args);
	}

	/**
	 * Crash a master and wait for the cluster to recover from it: kill the master at once
	 * ({@code SIGKILL}: it saves nothing and waits for no replica, so writes its replica
	 * had not received are lost), wait until its replica is promoted and every other node
	 * reports {@code cluster_state:ok} with the replica as the owner of the slots, then
	 * have every node forget the killed node, start it again empty and with a new
	 * identity, make it the replica of the promoted one and wait until it is in sync. The
	 * cluster then has three masters with a replica each again, ready for the next
	 * failover.
	 * @param master the master to kill
	 * @param timeout the longest time to wait for the failover, and again for the killed
	 * node to rejoin
	 * @return the promoted replica, the new master of the slots
	 * @throws IllegalStateException if the node is not a master with a replica, or the
	 * cluster does not recover in time
	 */
	public RedisServer killMaster(RedisServer master, Duration timeout) {
		Assert.notNull(master, "'master' must not be null");
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(this.nodes.contains(master), () -> master + " is not a node of " + this);
		Node killed = ClusterNodes.parse(master.command("CLUSTER", "NODES")).myself();
		Assert.state(killed.isMaster() && !killed.slots().isEmpty(), () -> master + " is not a master with slots");
		// A replica that has just rejoined may not be in the master's view yet: gossip
		// brings it within a few hundred milliseconds
		AtomicReference<@Nullable Node> replicaNode = new AtomicReference<>();
		await(master + " has no replica to promote", timeout, () -> {
			replicaNode.set(ClusterNodes.parse(master.command("CLUSTER", "NODES")).replicaOf(killed.id()));
			return replicaNode.get() != null;
		});
		Node found = replicaNode.get();
		Assert.state(found != null, "The await returns once a replica is found");
		RedisServer replica = node(found.port());
		int slot = killed.slots().get(0)[0];
		List<RedisServer> survivors = this.nodes.stream().filter((node) -> node != master).toList();
		long started = System.nanoTime();
		master.kill();
		await("The cluster did not promote " + replica + " after " + master + " was killed", timeout,
				() -> isPromoted(replica, survivors, slot));
		long promoted = System.nanoTime();
		// Forgotten by every node first, so that none tells the new node of the old one
		for (RedisServer survivor : survivors) {
			survivor.command("CLUSTER", "FORGET", killed.id());
		}
		try {
			Files.deleteIfExists(master.directory().resolve(CONFIG_FILE));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not delete the cluster configuration of " + master, ex);
		}
		master.restart();
		master.command("CLUSTER", "MEET", replica.host(), Integer.toString(replica.port()),
				Integer.toString(this.busPorts.get(this.nodes.indexOf(replica))));
		String replicaId = replica.command("CLUSTER", "MYID");
		Assert.state(replicaId != null, "CLUSTER MYID answered nil");
		await("The restarted " + master + " did not become a replica of " + replica, timeout,
				() -> replicate(master, replicaId));
		await("The restarted " + master + " did not rejoin as a replica in sync", timeout, this::isFormed);
		if (logger.isDebugEnabled()) {
			logger.debug("Killed " + master + ": " + replica + " promoted in "
					+ Duration.ofNanos(promoted - started).toMillis()
					+ " ms, the killed node rejoined as its replica in "
					+ Duration.ofNanos(System.nanoTime() - promoted).toMillis() + " ms");
		}
		return replica;
	}

	/**
	 * End every node. Calling it again does nothing.
	 */
	@Override
	public void close() {
		this.nodes.forEach(RedisServer::close);
	}

	@Override
	public String toString() {
		return "RedisCluster" + nodeAddresses();
	}

	private void form() {
		int perNode = slotsPerNode();
		for (int i = 0; i < MASTERS; i++) {
			RedisServer node = this.nodes.get(i);
			int first = i * perNode;
			int last = (i == MASTERS - 1) ? SLOTS - 1 : first + perNode - 1;
			node.command("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
			node.command("CLUSTER", "ADDSLOTSRANGE", Integer.toString(first), Integer.toString(last));
		}
		// Every node meets every other, so that none waits for gossip to learn of them
		for (int i = 0; i < this.nodes.size(); i++) {
			for (int j = i + 1; j < this.nodes.size(); j++) {
				RedisServer other = this.nodes.get(j);
				this.nodes.get(i)
					.command("CLUSTER", "MEET", other.host(), Integer.toString(other.port()),
							Integer.toString(this.busPorts.get(j)));
			}
		}
		for (int i = MASTERS; i < this.nodes.size(); i++) {
			RedisServer replica = this.nodes.get(i);
			String masterId = this.nodes.get(i - MASTERS).command("CLUSTER", "MYID");
			Assert.state(masterId != null, "CLUSTER MYID answered nil");
			await("Redis Cluster did not form: " + replica + " could not replicate its master", FORMATION_TIMEOUT,
					() -> replicate(replica, masterId));
		}
		await("Redis Cluster did not form", FORMATION_TIMEOUT, this::isFormed);
	}

	/**
	 * Whether every node knows every other, serves every slot, and every replica is in
	 * sync.
	 */
	private boolean isFormed() {
		for (RedisServer node : this.nodes) {
			String info = node.command("CLUSTER", "INFO");
			if (info == null || !info.contains("cluster_state:ok")
					|| !info.contains("cluster_known_nodes:" + this.nodes.size())
					|| !info.contains("cluster_slots_ok:" + SLOTS)) {
				return false;
			}
			ClusterNodes view = ClusterNodes.parse(node.command("CLUSTER", "NODES"));
			if (view.connected() != this.nodes.size() || view.masters() != MASTERS) {
				return false;
			}
			String replication = node.command("INFO", "replication");
			if (replication == null
					|| (replication.contains("role:slave") && !replication.contains("master_link_status:up"))) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Whether a replica answers as a master and every surviving node serves every slot
	 * and names it the owner of the given slot.
	 */
	private boolean isPromoted(RedisServer replica, List<RedisServer> survivors, int slot) {
		if (!String.valueOf(replica.command("ROLE")).startsWith("master")) {
			return false;
		}
		for (RedisServer survivor : survivors) {
			if (!String.valueOf(survivor.command("CLUSTER", "INFO")).contains("cluster_state:ok")) {
				return false;
			}
			Node owner = ClusterNodes.parse(survivor.command("CLUSTER", "NODES")).ownerOf(slot);
			if (owner == null || owner.port() != replica.port()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Make a node the replica of a master; throws while the node does not know the master
	 * yet ({@code Unknown node}).
	 */
	private static boolean replicate(RedisServer replica, String masterId) {
		replica.command("CLUSTER", "REPLICATE", masterId);
		return true;
	}

	private @Nullable String anyNodeCommand(String... args) {
		RuntimeException failure = null;
		for (RedisServer node : this.nodes) {
			try {
				return node.command(args);
			}
			catch (RuntimeException ex) {
				// Killed, or not answering: ask the next
				failure = ex;
			}
		}
		throw (failure != null) ? failure : new IllegalStateException("No node");
	}

	private RedisServer node(int port) {
		return this.nodes.stream()
			.filter((node) -> node.port() == port)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("The cluster names an unknown node on port " + port));
	}

	/**
	 * Wait until a condition holds; a condition that throws (a node does not answer, or
	 * answers with an error) does not hold yet.
	 */
	private void await(String failure, Duration timeout, BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			try {
				if (condition.getAsBoolean()) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// Not yet
			}
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException(failure + " within " + timeout.toSeconds() + " s:" + describe());
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for the Redis Cluster", ex);
			}
		}
	}

	private String describe() {
		StringBuilder state = new StringBuilder();
		for (RedisServer node : this.nodes) {
			state.append('\n').append(node).append(":\n");
			try {
				state.append(node.command("CLUSTER", "NODES"));
			}
			catch (RuntimeException ex) {
				state.append(ex.getMessage());
			}
		}
		return state.toString();
	}

	private static int slotsPerNode() {
		return SLOTS / MASTERS + 1;
	}

}
