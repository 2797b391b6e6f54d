package dev.lockstarter.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;
import org.springframework.util.Assert;

/**
 * A real Redis Cluster for tests: three {@code redis-server} processes with cluster mode
 * on, each a master of a third of the 16384 hash slots, without replicas, listening on
 * free loopback ports (with their cluster bus on free ports too).
 * <p>
 * {@link #start()} starts the nodes (see {@link RedisServer} for how a binary is found),
 * assigns the slots, introduces the nodes to each other ({@code CLUSTER MEET}) and waits
 * until every node reports {@code cluster_state:ok} and knows every other, about two
 * seconds in all. Redis Cluster needs a local {@code redis-server}; containers are not
 * used.
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

	private static final int MASTERS = 3;

	private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(20);

	private static final Log logger = LogFactory.getLog(RedisCluster.class);

	private final List<RedisServer> nodes;

	private final List<Integer> busPorts;

	private RedisCluster(List<RedisServer> nodes, List<Integer> busPorts) {
		this.nodes = List.copyOf(nodes);
		this.busPorts = List.copyOf(busPorts);
	}

	/**
	 * Start a cluster of three masters and wait until it serves every slot.
	 * @return the running cluster
	 * @throws IllegalStateException if no local {@code redis-server} is found, or the
	 * cluster does not form within 20 seconds
	 */
	public static RedisCluster start() {
		Assert.state(RedisServer.findBinary() != null,
				"Cannot start a Redis Cluster for tests: no 'redis-server' binary on the PATH. Install Redis, for "
						+ "example with 'apt-get install redis-server', or name the binary with -D"
						+ RedisServer.BINARY_PROPERTY + "=/path/to/redis-server");
		long started = System.nanoTime();
		List<RedisServer> nodes = new ArrayList<>();
		List<Integer> busPorts = new ArrayList<>();
		try {
			for (int i = 0; i < MASTERS; i++) {
				int busPort = ServerProcess.freePort();
				nodes.add(RedisServer.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
						"--cluster-node-timeout", "5000", "--cluster-port", Integer.toString(busPort)));
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
	 * Return the nodes, in the order of their slot ranges: the first serves slots 0 to
	 * 5460.
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
		String slot = this.nodes.get(0).command("CLUSTER", "KEYSLOT", key);
		Assert.state(slot != null, "CLUSTER KEYSLOT answered nil");
		return Integer.parseInt(slot);
	}

	/**
	 * Return the node that serves a key's slot.
	 * @param key the key
	 * @return the node
	 */
	public RedisServer nodeFor(String key) {
		return nodeForSlot(keySlot(key));
	}

	/**
	 * Return the node that serves a slot.
	 * @param slot the slot
	 * @return the node
	 */
	public RedisServer nodeForSlot(int slot) {
		Assert.isTrue(slot >= 0 && slot < SLOTS, () -> "Not a hash slot: " + slot);
		return this.nodes.get(Math.min(MASTERS - 1, slot / slotsPerNode()));
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
		// Every node meets every other, so that none waits for gossip to learn of the
		// third
		for (int i = 0; i < MASTERS; i++) {
			for (int j = i + 1; j < MASTERS; j++) {
				RedisServer other = this.nodes.get(j);
				this.nodes.get(i)
					.command("CLUSTER", "MEET", other.host(), Integer.toString(other.port()),
							Integer.toString(this.busPorts.get(j)));
			}
		}
		awaitFormed();
	}

	private void awaitFormed() {
		long deadline = System.nanoTime() + FORMATION_TIMEOUT.toNanos();
		while (!isFormed()) {
			if (System.nanoTime() - deadline > 0) {
				StringBuilder state = new StringBuilder();
				for (RedisServer node : this.nodes) {
					state.append('\n').append(node).append(":\n").append(node.command("CLUSTER", "NODES"));
				}
				throw new IllegalStateException(
						"Redis Cluster did not form within " + FORMATION_TIMEOUT.toSeconds() + " s:" + state);
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for the Redis Cluster to form", ex);
			}
		}
	}

	private boolean isFormed() {
		for (RedisServer node : this.nodes) {
			String info = node.command("CLUSTER", "INFO");
			if (info == null || !info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + MASTERS)
					|| !info.contains("cluster_slots_ok:" + SLOTS)) {
				return false;
			}
			String nodes = node.command("CLUSTER", "NODES");
			if (nodes == null || nodes.lines().filter((line) -> line.contains(" connected")).count() != MASTERS) {
				return false;
			}
		}
		return true;
	}

	private static int slotsPerNode() {
		return SLOTS / MASTERS + 1;
	}

}
