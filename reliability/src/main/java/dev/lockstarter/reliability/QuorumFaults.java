package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.test.etcd.EtcdCluster;
import dev.lockstarter.test.fault.NamespaceNetwork;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsemble;
import org.springframework.util.Assert;

/**
 * The faults of a three-member consensus cluster (etcd or ZooKeeper), one per
 * {@link #next()} and each {@linkplain #kinds() kind} in turn, see {@link Kind}. Every
 * fault ends with the cluster whole again: all members running, connected, and one
 * leading.
 */
final class QuorumFaults {

	/** The longest a fault waits for a leader, or for the cluster to be whole again. */
	static final Duration ELECTION_DEADLINE = Duration.ofSeconds(30);

	/**
	 * How long a partition lasts once another member leads: as long as a worker's store
	 * call may wait, so that the clients of the cut-off leader time out on it.
	 */
	static final Duration PARTITION_HOLD = StoreUnderTest.STORE_TIMEOUT;

	/**
	 * The kinds of fault, in the order they are inflicted.
	 */
	enum Kind {

		/** {@code kill -9} of the leader; restarted once another member leads. */
		KILL_LEADER("`kill -9` of the leader, restarted once another member leads"),

		/**
		 * {@code SIGSTOP} of the leader until another member leads, which takes longer
		 * than the election timeout; then {@code SIGCONT}, after which it follows.
		 */
		PAUSE_LEADER("`SIGSTOP` of the leader until another member leads, then `SIGCONT`"),

		/** Restart of a follower ({@code SIGTERM}, then a start on the same data). */
		RESTART_FOLLOWER("restart of a follower (`SIGTERM`, then a start on its data)"),

		/**
		 * The leader cut off from the two others by the network, its clients still
		 * reaching it, until another member leads and {@link #PARTITION_HOLD} more; then
		 * reconnected, after which it follows. Needs network namespaces (see
		 * {@link NamespaceNetwork}).
		 */
		PARTITION_LEADER("the leader cut off from the two others by the network, its clients still reaching it, "
				+ "until another member leads and " + PARTITION_HOLD.toSeconds() + " s more, then reconnected");

		private final String description;

		Kind(String description) {
			this.description = description;
		}

		/** The kind, for the report. */
		String description() {
			return this.description;
		}

		/**
		 * How many of the first {@code faults} faults were of this kind.
		 * @param faults the number of faults inflicted
		 * @return the number of this kind among them; 0 if it is not among the
		 * {@linkplain #kinds() kinds inflicted}
		 */
		long countIn(long faults) {
			List<Kind> kinds = kinds();
			int index = kinds.indexOf(this);
			if (index < 0) {
				return 0;
			}
			return faults / kinds.size() + ((index < faults % kinds.size()) ? 1 : 0);
		}

	}

	/**
	 * Return the kinds of fault inflicted on this machine, in turn: every kind where the
	 * machine allows network namespaces, else all but {@link Kind#PARTITION_LEADER}.
	 * @return the kinds
	 */
	static List<Kind> kinds() {
		return Arrays.stream(Kind.values())
			.filter((kind) -> kind != Kind.PARTITION_LEADER || NamespaceNetwork.isSupported())
			.toList();
	}

	/**
	 * Return a network for a cluster's members where the machine allows network
	 * namespaces, so that {@link Kind#PARTITION_LEADER} can be inflicted.
	 * @return the network, or {@code null} for loopback
	 */
	static @Nullable NamespaceNetwork network() {
		return NamespaceNetwork.isSupported() ? NamespaceNetwork.create(EtcdCluster.SIZE) : null;
	}

	/**
	 * A three-member cluster as the launchers of the test kit offer it, its members named
	 * by their index.
	 */
	interface Cluster {

		/** The number of members. */
		int size();

		/** Wait until a member that is neither paused nor stopped leads; its index. */
		int awaitLeader(Duration timeout);

		/** {@code kill -9} of a member, keeping its data. */
		void kill(int member);

		/** {@code SIGSTOP} of a member. */
		void pause(int member);

		/** {@code SIGCONT} of a paused member. */
		void resume(int member);

		/** {@code SIGTERM} of a member, keeping its data. */
		void stop(int member);

		/** Start a member again on its data; may return before it has rejoined. */
		void restart(int member);

		/** Wait until every member runs and one leads. */
		void awaitWhole(Duration timeout);

	}

	private final Cluster cluster;

	private final @Nullable NamespaceNetwork network;

	private final List<Kind> kinds = kinds();

	private int faults;

	/**
	 * Create the faults of a cluster.
	 * @param cluster the cluster
	 * @param network the network its members run on, which {@link #network()} gave
	 */
	QuorumFaults(Cluster cluster, @Nullable NamespaceNetwork network) {
		Assert.isTrue((network != null) == this.kinds.contains(Kind.PARTITION_LEADER),
				"A partition needs the cluster on a network of namespaces, where the machine allows them");
		this.cluster = cluster;
		this.network = network;
	}

	/**
	 * Inflict the next fault and return once the cluster is whole again.
	 * @return the kind of fault inflicted
	 */
	Kind next() {
		Kind kind = this.kinds.get(this.faults++ % this.kinds.size());
		int leader = this.cluster.awaitLeader(ELECTION_DEADLINE);
		switch (kind) {
			case KILL_LEADER -> {
				this.cluster.kill(leader);
				awaitAnotherLeader(leader);
				this.cluster.restart(leader);
			}
			case PAUSE_LEADER -> {
				this.cluster.pause(leader);
				try {
					awaitAnotherLeader(leader);
				}
				finally {
					this.cluster.resume(leader);
				}
			}
			case RESTART_FOLLOWER -> {
				int follower = (leader + 1) % this.cluster.size();
				this.cluster.stop(follower);
				this.cluster.restart(follower);
			}
			case PARTITION_LEADER -> {
				NamespaceNetwork network = this.network;
				Assert.state(network != null, "No network to partition");
				network.isolate(leader);
				try {
					awaitAnotherLeader(leader);
					sleep(PARTITION_HOLD.toMillis());
				}
				finally {
					network.reconnect(leader);
				}
			}
		}
		this.cluster.awaitWhole(ELECTION_DEADLINE);
		return kind;
	}

	private void awaitAnotherLeader(int old) {
		long deadline = System.nanoTime() + ELECTION_DEADLINE.toNanos();
		while (this.cluster.awaitLeader(ELECTION_DEADLINE) == old) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("No other member was elected within " + ELECTION_DEADLINE);
			}
			sleep(20);
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while inflicting a fault", ex);
		}
	}

	/**
	 * An etcd cluster's members as a {@link Cluster}.
	 * @param etcd the cluster
	 * @return the view
	 */
	static Cluster of(EtcdCluster etcd) {
		return new Cluster() {

			@Override
			public int size() {
				return etcd.members().size();
			}

			@Override
			public int awaitLeader(Duration timeout) {
				return etcd.members().indexOf(etcd.awaitLeader(timeout));
			}

			@Override
			public void kill(int member) {
				etcd.member(member).kill();
			}

			@Override
			public void pause(int member) {
				etcd.member(member).pause();
			}

			@Override
			public void resume(int member) {
				etcd.member(member).resume();
			}

			@Override
			public void stop(int member) {
				etcd.member(member).stop();
			}

			@Override
			public void restart(int member) {
				etcd.member(member).restart();
			}

			@Override
			public void awaitWhole(Duration timeout) {
				etcd.heal();
			}

		};
	}

	/**
	 * A ZooKeeper ensemble's servers as a {@link Cluster}.
	 * @param ensemble the ensemble
	 * @return the view
	 */
	static Cluster of(ZooKeeperEnsemble ensemble) {
		return new Cluster() {

			@Override
			public int size() {
				return ensemble.servers().size();
			}

			@Override
			public int awaitLeader(Duration timeout) {
				return ensemble.servers().indexOf(ensemble.awaitLeader(timeout));
			}

			@Override
			public void kill(int member) {
				ensemble.server(member).kill();
			}

			@Override
			public void pause(int member) {
				ensemble.server(member).pause();
			}

			@Override
			public void resume(int member) {
				ensemble.server(member).resume();
			}

			@Override
			public void stop(int member) {
				ensemble.server(member).stop();
			}

			@Override
			public void restart(int member) {
				ensemble.server(member).restart();
			}

			@Override
			public void awaitWhole(Duration timeout) {
				ensemble.heal(timeout);
			}

		};
	}

}
