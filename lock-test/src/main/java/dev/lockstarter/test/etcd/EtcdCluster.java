package dev.lockstarter.test.etcd;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.ServerProcess;
import dev.lockstarter.test.fault.MemberHost;
import dev.lockstarter.test.fault.NamespaceNetwork;
import org.springframework.util.Assert;

/**
 * A real three-member etcd cluster for tests, on free loopback ports (a client and a peer
 * port per member), each member with its data in its own temporary directory.
 * <p>
 * {@link #start()} finds {@code etcd} as {@link EtcdServer} does, starts the three
 * members as child processes with a static bootstrap ({@code --initial-cluster} naming
 * all three, and a token of its own so that members of two clusters never join each
 * other), and returns once every member is healthy and a majority names the same leader,
 * which confirms it leads. The members run with the settings described on
 * {@link EtcdMember}: a failover completes within one to two
 * {@linkplain EtcdMember#ELECTION_TIMEOUT election timeouts} of the leader's death.
 * <p>
 * For failure tests, {@link #leader()} says which member leads, any
 * {@linkplain #member(int) member} can be paused, killed and restarted, after which it
 * rejoins, {@link #awaitLeader(Duration)} waits until a leader is elected (a new one if
 * the old one is paused or dead), and {@link #heal()} brings every member back. Started
 * {@linkplain #start(NamespaceNetwork) on a network of namespaces}, a member can also be
 * cut off from the others by the network, see {@link NamespaceNetwork#isolate(int)}.
 * {@link #close()} kills every member and deletes their directories; members still
 * running when the JVM exits are killed by a shutdown hook.
 *
 * <pre class="code">
 * try (EtcdCluster cluster = EtcdCluster.start()) {
 *     Client client = Client.builder().endpoints(cluster.endpoints().toArray(String[]::new)).build();
 *     EtcdMember leader = cluster.leader();
 *     leader.kill();
 *     EtcdMember next = cluster.awaitLeader(Duration.ofSeconds(10));
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 * @see EtcdClusterExtension
 */
public final class EtcdCluster implements AutoCloseable {

	/** The number of members. */
	public static final int SIZE = 3;

	private static final int MAJORITY = SIZE / 2 + 1;

	private static final Log logger = LogFactory.getLog(EtcdCluster.class);

	private final List<EtcdMember> members;

	private EtcdCluster(List<EtcdMember> members) {
		this.members = List.copyOf(members);
	}

	/**
	 * Start three members and wait until every one is healthy and they have a leader.
	 * @return the running cluster
	 * @throws IllegalStateException if no {@code etcd} is found, naming what to install,
	 * or if the cluster is not ready within 30 seconds
	 */
	public static EtcdCluster start() {
		return start(null);
	}

	/**
	 * Start three members, each on the host of a network with the same index, and wait
	 * until every one is healthy and they have a leader. Clients reach the members on the
	 * hosts' client addresses; the members talk to each other on the peer addresses, so
	 * that {@link NamespaceNetwork#isolate(int) isolating} a host cuts its member off
	 * from the others and not from its clients.
	 * @param network a network of at least three hosts, or {@code null} for loopback
	 * @return the running cluster
	 * @throws IllegalStateException if no {@code etcd} is found, naming what to install,
	 * or if the cluster is not ready within 30 seconds
	 */
	public static EtcdCluster start(@Nullable NamespaceNetwork network) {
		Assert.isTrue(network == null || network.size() >= SIZE,
				() -> "An etcd cluster needs a network of at least " + SIZE + " hosts");
		Path binary = EtcdBinary.find("an etcd cluster");
		long started = System.nanoTime();
		List<Integer> ports = distinctFreePorts(2 * SIZE);
		String token = "lockstarter-" + UUID.randomUUID();
		List<MemberHost> hosts = new ArrayList<>();
		List<String> peers = new ArrayList<>();
		for (int i = 0; i < SIZE; i++) {
			hosts.add(MemberHost.of(network, i));
			peers.add(memberName(i) + "=" + EtcdMember.url(hosts.get(i).peerAddress(), ports.get(SIZE + i)));
		}
		String initialCluster = String.join(",", peers);
		List<EtcdMember> members = new ArrayList<>();
		try {
			for (int i = 0; i < SIZE; i++) {
				members.add(EtcdMember.startInCluster(binary, memberName(i), token, ports.get(i), ports.get(SIZE + i),
						initialCluster, hosts.get(i)));
			}
			EtcdCluster cluster = new EtcdCluster(members);
			cluster.awaitReady(EtcdMember.READY_TIMEOUT);
			// Known from now on, also while a member is down
			members.forEach(EtcdMember::id);
			if (logger.isDebugEnabled()) {
				logger.debug("Started " + cluster + " in " + Duration.ofNanos(System.nanoTime() - started).toMillis()
						+ " ms");
			}
			return cluster;
		}
		catch (RuntimeException ex) {
			members.forEach(EtcdMember::close);
			throw ex;
		}
	}

	/**
	 * Return the members, in the order of their names ({@code member-0} to
	 * {@code member-2}), which does not change.
	 * @return the members
	 */
	public List<EtcdMember> members() {
		return this.members;
	}

	/**
	 * Return one member.
	 * @param index from 0 to 2
	 * @return the member
	 */
	public EtcdMember member(int index) {
		Assert.isTrue(index >= 0 && index < SIZE, () -> "A member's index is from 0 to " + (SIZE - 1) + ": " + index);
		return this.members.get(index);
	}

	/**
	 * Return the client URLs of the members, for a client's endpoints.
	 * @return the URLs, such as {@code http://127.0.0.1:2379}
	 */
	public List<String> endpoints() {
		return this.members.stream().map(EtcdMember::endpoint).toList();
	}

	/**
	 * Return the client URLs of the members joined with commas, for a property such as a
	 * store's endpoints.
	 * @return the URLs, such as
	 * {@code http://127.0.0.1:2379,http://127.0.0.1:22379,http://127.0.0.1:32379}
	 */
	public String endpointsAsString() {
		return String.join(",", endpoints());
	}

	/**
	 * Return the member that leads now: the one that a majority of the members names as
	 * leader and that says it leads. Paused and stopped members are not asked.
	 * @return the leader
	 * @throws IllegalStateException if there is no such member, during an election for
	 * example
	 * @see #awaitLeader(Duration)
	 */
	public EtcdMember leader() {
		Map<EtcdMember, Object> answers = ask();
		Map<Long, Integer> votes = new HashMap<>();
		Set<Long> selfConfirmed = new LinkedHashSet<>();
		answers.forEach((member, answer) -> {
			if (answer instanceof EtcdGateway.Status status) {
				member.remember(status.memberId());
			}
		});
		for (Object answer : answers.values()) {
			if (answer instanceof EtcdGateway.Status status && status.leaderId() != 0) {
				votes.merge(status.leaderId(), 1, Integer::sum);
				if (status.isLeader()) {
					selfConfirmed.add(status.memberId());
				}
			}
		}
		for (long id : selfConfirmed) {
			if (votes.getOrDefault(id, 0) >= MAJORITY) {
				for (EtcdMember member : this.members) {
					if (member.knownId() == id) {
						return member;
					}
				}
			}
		}
		throw new IllegalStateException("The etcd cluster has no leader that a majority follows: " + describe(answers));
	}

	/**
	 * Wait until the cluster has a leader, see {@link #leader()}: the same one if it
	 * leads, a new one once the followers elect it if the leader was paused or killed.
	 * @param timeout the longest time to wait
	 * @return the leader
	 * @throws IllegalStateException if there is no leader in time
	 */
	public EtcdMember awaitLeader(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		long started = System.nanoTime();
		long deadline = started + timeout.toNanos();
		while (true) {
			try {
				EtcdMember leader = leader();
				if (logger.isDebugEnabled()) {
					logger.debug(leader.name() + " leads, found in "
							+ Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms");
				}
				return leader;
			}
			catch (IllegalStateException ex) {
				if (System.nanoTime() - deadline > 0) {
					throw new IllegalStateException("No leader within " + timeout.toMillis() + " ms", ex);
				}
			}
			EtcdMember.sleep(20);
		}
	}

	/**
	 * Resume every paused member, restart every stopped or killed one, and wait until
	 * every member is healthy and they have a leader. Does nothing to a healthy cluster.
	 * @throws IllegalStateException if the cluster is not healthy within 30 seconds
	 */
	public void heal() {
		for (EtcdMember member : this.members) {
			member.resume();
		}
		for (EtcdMember member : this.members) {
			if (!member.isRunning()) {
				member.relaunch();
			}
		}
		awaitReady(EtcdMember.READY_TIMEOUT);
	}

	/**
	 * Kill every member and delete their directories. Calling it again does nothing.
	 */
	@Override
	public void close() {
		this.members.forEach(EtcdMember::close);
	}

	@Override
	public String toString() {
		return "EtcdCluster" + endpoints();
	}

	private void awaitReady(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		for (EtcdMember member : this.members) {
			member.awaitHealthy(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
		}
		awaitLeader(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
	}

	/**
	 * Ask every running member for its status at once; a member that does not answer maps
	 * to its failure.
	 */
	private Map<EtcdMember, Object> ask() {
		Map<EtcdMember, CompletableFuture<Object>> asked = new LinkedHashMap<>();
		for (EtcdMember member : this.members) {
			if (member.isRunning()) {
				asked.put(member,
						member.gateway()
							.statusAsync()
							.handle((status, failure) -> (status != null) ? status : failure));
			}
		}
		Map<EtcdMember, Object> answers = new LinkedHashMap<>();
		asked.forEach((member, answer) -> answers.put(member, answer.join()));
		return answers;
	}

	private String describe(Map<EtcdMember, Object> answers) {
		return this.members.stream().map((member) -> {
			Object answer = answers.get(member);
			String state = (answer != null) ? String.valueOf(answer) : "not running";
			return member.name() + " (" + Long.toHexString(member.knownId()) + "): " + state;
		}).collect(Collectors.joining("; ", "[", "]"));
	}

	private static String memberName(int index) {
		return "member-" + index;
	}

	private static List<Integer> distinctFreePorts(int count) {
		Set<Integer> ports = new LinkedHashSet<>();
		while (ports.size() < count) {
			ports.add(ServerProcess.freePort());
		}
		return List.copyOf(ports);
	}

}
