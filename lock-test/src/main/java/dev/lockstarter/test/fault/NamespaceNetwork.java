package dev.lockstarter.test.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A network of hosts for the members of a cluster, each in a Linux network namespace of
 * its own, whose link to the other members can be cut while clients still reach it: the
 * network partition of failure tests, which loopback cannot give.
 * <p>
 * Every host has two addresses, each on a bridge of its own: a <em>client</em> address,
 * which the JVM that created the network reaches, and a <em>peer</em> address, for the
 * members' traffic among themselves. {@link #isolate(int)} takes a host's link to the
 * peer bridge down: its peers no longer reach it, nor it them, as in a partition that
 * cuts a server off from the majority, while its clients, like the clients of a real
 * server on the wrong side of a partition, still do. {@link #reconnect(int)} heals it. A
 * host has no route besides its two bridges, so nothing goes round the cut.
 * <p>
 * A server runs on a host when its command line is {@linkplain #command(int, List)
 * prefixed} with {@code ip netns exec}, which runs the server in place of itself: the
 * process started is the server, which signals reach as usual. Creating namespaces needs
 * root (or {@code CAP_NET_ADMIN}) and {@code ip} from iproute2; {@link #isSupported()}
 * says whether this machine allows it. {@link #close()} deletes the namespaces and the
 * bridges; networks still there when the JVM exits are deleted by a shutdown hook.
 *
 * <pre class="code">
 * try (NamespaceNetwork network = NamespaceNetwork.create(3);
 *         EtcdCluster cluster = EtcdCluster.start(network)) {
 *     int leader = cluster.members().indexOf(cluster.leader());
 *     network.isolate(leader);
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 */
public final class NamespaceNetwork implements AutoCloseable {

	/** The most networks that can exist at once on a machine. */
	private static final int MAX_NETWORKS = 200;

	private static final long COMMAND_TIMEOUT_SECONDS = 10;

	private static final Log logger = LogFactory.getLog(NamespaceNetwork.class);

	private static final Set<NamespaceNetwork> open = ConcurrentHashMap.newKeySet();

	private static volatile @Nullable Boolean supported;

	static {
		Runtime.getRuntime()
			.addShutdownHook(new Thread(() -> open.forEach(NamespaceNetwork::delete), "namespace-network-cleanup"));
	}

	private final String ip;

	private final int index;

	private final int size;

	private final boolean[] isolated;

	private NamespaceNetwork(String ip, int index, int size) {
		this.ip = ip;
		this.index = index;
		this.size = size;
		this.isolated = new boolean[size];
	}

	/**
	 * Return whether this machine lets the tests create network namespaces: {@code ip} is
	 * installed and a namespace can be added and deleted. Asked once per JVM.
	 * @return whether {@link #create(int)} can succeed
	 */
	public static boolean isSupported() {
		Boolean answer = supported;
		if (answer == null) {
			answer = probe();
			supported = answer;
		}
		return answer;
	}

	/**
	 * Create a network of hosts, each in a namespace of its own, with a client and a peer
	 * address, all reachable.
	 * @param hosts the number of hosts, from 1 to 200
	 * @return the network
	 * @throws IllegalStateException if the machine does not allow it (see
	 * {@link #isSupported()}), with the output of the command that failed
	 */
	public static NamespaceNetwork create(int hosts) {
		Assert.isTrue(hosts > 0 && hosts <= 200, () -> "A network has 1 to 200 hosts: " + hosts);
		String ip = findIp();
		Assert.state(ip != null, "Network namespaces need 'ip' from iproute2: install the 'iproute2' package");
		String refusal = "";
		for (int index = 0; index < MAX_NETWORKS; index++) {
			// Adding the client bridge claims the index, also against other JVMs
			Result claimed = run(ip, "link", "add", bridge(index, 'c'), "type", "bridge");
			if (claimed.exitCode() != 0) {
				refusal = claimed.output().strip();
				continue;
			}
			NamespaceNetwork network = new NamespaceNetwork(ip, index, hosts);
			open.add(network);
			try {
				network.build();
				return network;
			}
			catch (RuntimeException ex) {
				network.close();
				throw ex;
			}
		}
		throw new IllegalStateException("Could not create a namespace network: " + MAX_NETWORKS
				+ " exist, or bridges cannot be added (" + refusal + ")");
	}

	/**
	 * Return the number of hosts.
	 * @return the number of hosts
	 */
	public int size() {
		return this.size;
	}

	/**
	 * Return a host's client address, which the JVM that created the network reaches.
	 * @param host the host's index, from 0
	 * @return the address, such as {@code 10.231.0.2}
	 */
	public String clientAddress(int host) {
		return address('c', checked(host) + 2);
	}

	/**
	 * Return a host's peer address, for the traffic among the members, which
	 * {@link #isolate(int)} cuts.
	 * @param host the host's index, from 0
	 * @return the address, such as {@code 10.232.0.2}
	 */
	public String peerAddress(int host) {
		return address('p', checked(host) + 2);
	}

	/**
	 * Return a host, for a member of a cluster to run on.
	 * @param host the host's index, from 0
	 * @return its addresses and launcher
	 */
	public MemberHost host(int host) {
		return new MemberHost(clientAddress(host), peerAddress(host),
				List.of(this.ip, "netns", "exec", namespace(checked(host))));
	}

	/**
	 * Return a command line that runs the given one on a host: prefixed with
	 * {@code ip netns exec}, which executes the command in place of itself.
	 * @param host the host's index, from 0
	 * @param command the command, the binary first
	 * @return the command to run
	 */
	public List<String> command(int host, List<String> command) {
		return host(host).command(command);
	}

	/**
	 * Cut a host off from its peers: its link to the peer bridge goes down. Its clients
	 * still reach it. Does nothing if it is isolated.
	 * @param host the host's index, from 0
	 */
	public synchronized void isolate(int host) {
		setPeerLink(checked(host), "down");
		this.isolated[host] = true;
	}

	/**
	 * Connect an {@linkplain #isolate(int) isolated} host to its peers again. Does
	 * nothing if it is not isolated.
	 * @param host the host's index, from 0
	 */
	public synchronized void reconnect(int host) {
		setPeerLink(checked(host), "up");
		this.isolated[host] = false;
	}

	/**
	 * Return whether a host is {@linkplain #isolate(int) isolated}.
	 * @param host the host's index, from 0
	 * @return whether it is cut off from its peers
	 */
	public synchronized boolean isIsolated(int host) {
		return this.isolated[checked(host)];
	}

	/**
	 * Delete the namespaces and bridges. Processes still running on a host keep running,
	 * without a network. Calling it again does nothing.
	 */
	@Override
	public void close() {
		if (open.remove(this)) {
			delete();
		}
	}

	@Override
	public String toString() {
		return "NamespaceNetwork[" + this.size + " hosts, clients on " + address('c', 0) + "/24, peers on "
				+ address('p', 0) + "/24]";
	}

	private void build() {
		for (char plane : new char[] { 'c', 'p' }) {
			String bridge = bridge(this.index, plane);
			if (plane == 'p') {
				// A bridge of a network that was not deleted, when its JVM was killed
				run(this.ip, "link", "delete", bridge);
				ip("link", "add", bridge, "type", "bridge");
			}
			ip("addr", "add", address(plane, 1) + "/24", "dev", bridge);
			ip("link", "set", bridge, "up");
		}
		for (int host = 0; host < this.size; host++) {
			String namespace = namespace(host);
			// A namespace of a network that was not deleted, when its JVM was killed
			run(this.ip, "netns", "delete", namespace);
			ip("netns", "add", namespace);
			ip("-n", namespace, "link", "set", "lo", "up");
			for (char plane : new char[] { 'c', 'p' }) {
				String outside = link(host, plane);
				String inside = (plane == 'c') ? "client0" : "peer0";
				// A link left by a network deleted before, by this JVM or another: its
				// namespace lived on while a process ran in it, and so did its links
				run(this.ip, "link", "delete", outside);
				ip("link", "add", outside, "type", "veth", "peer", "name", inside, "netns", namespace);
				ip("link", "set", outside, "master", bridge(this.index, plane), "up");
				ip("-n", namespace, "addr", "add", address(plane, host + 2) + "/24", "dev", inside);
				ip("-n", namespace, "link", "set", inside, "up");
			}
		}
		if (logger.isDebugEnabled()) {
			logger.debug("Created " + this);
		}
	}

	private void delete() {
		for (int host = 0; host < this.size; host++) {
			// The links first: a namespace in which a process still runs outlives its
			// deletion, and keeps its links, while the index is free again once the
			// bridges below are gone
			run(this.ip, "link", "delete", link(host, 'c'));
			run(this.ip, "link", "delete", link(host, 'p'));
			run(this.ip, "netns", "delete", namespace(host));
		}
		run(this.ip, "link", "delete", bridge(this.index, 'p'));
		run(this.ip, "link", "delete", bridge(this.index, 'c'));
	}

	private void setPeerLink(int host, String state) {
		ip("link", "set", link(host, 'p'), state);
		if (logger.isDebugEnabled()) {
			logger.debug("Peer link of host " + host + " of " + this + " " + state);
		}
	}

	private int checked(int host) {
		Assert.isTrue(host >= 0 && host < this.size,
				() -> "A host's index is from 0 to " + (this.size - 1) + ": " + host);
		return host;
	}

	private String namespace(int host) {
		return "lockstarter-" + this.index + "-" + host;
	}

	/** A host's end of its link to a bridge; at most 15 characters. */
	private String link(int host, char plane) {
		return "ls" + this.index + plane + host;
	}

	private String address(char plane, int host) {
		return ((plane == 'c') ? "10.231." : "10.232.") + this.index + "." + host;
	}

	private static String bridge(int index, char plane) {
		return "lsbr" + index + plane;
	}

	private void ip(String... arguments) {
		String[] command = Stream.concat(Stream.of(this.ip), Stream.of(arguments)).toArray(String[]::new);
		Result result = run(command);
		Assert.state(result.exitCode() == 0, () -> "'" + String.join(" ", command) + "' failed (exit code "
				+ result.exitCode() + "): " + result.output().strip());
	}

	private static boolean probe() {
		String ip = findIp();
		if (ip == null) {
			return false;
		}
		String namespace = "lockstarter-probe-" + ProcessHandle.current().pid();
		boolean added = run(ip, "netns", "add", namespace).exitCode() == 0;
		if (added) {
			run(ip, "netns", "delete", namespace);
		}
		return added;
	}

	private static @Nullable String findIp() {
		for (String directory : List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin")) {
			Path ip = Path.of(directory, "ip");
			if (Files.isExecutable(ip)) {
				return ip.toString();
			}
		}
		return null;
	}

	private static Result run(String... command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return new Result(-1, "no answer within " + COMMAND_TIMEOUT_SECONDS + " s");
			}
			return new Result(process.exitValue(),
					new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			return new Result(-1, String.valueOf(ex.getMessage()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + command[0], ex);
		}
	}

	private record Result(int exitCode, String output) {
	}

}
