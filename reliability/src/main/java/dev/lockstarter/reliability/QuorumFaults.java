package dev.lockstarter.reliability;

import java.time.Duration;

import dev.lockstarter.test.etcd.EtcdCluster;
import dev.lockstarter.test.zookeeper.ZooKeeperEnsemble;

/**
 * The faults of a three-member consensus cluster (etcd or ZooKeeper), one per
 * {@link #next()} and each kind in turn, see {@link Kind}. Every fault ends with the
 * cluster whole again: all members running and one leading.
 */
final class QuorumFaults {

	/** The longest a fault waits for a leader, or for the cluster to be whole again. */
	static final Duration ELECTION_DEADLINE = Duration.ofSeconds(30);

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
		RESTART_FOLLOWER("restart of a follower (`SIGTERM`, then a start on its data)");

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
		 * @return the number of this kind among them
		 */
		long countIn(long faults) {
			int kinds = values().length;
			return faults / kinds + ((ordinal() < faults % kinds) ? 1 : 0);
		}

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

	private int faults;

	QuorumFaults(Cluster cluster) {
		this.cluster = cluster;
	}

	/**
	 * Inflict the next fault and return once the cluster is whole again.
	 * @return the kind of fault inflicted
	 */
	Kind next() {
		Kind kind = Kind.values()[this.faults++ % Kind.values().length];
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
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for an election", ex);
			}
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
