package dev.lockstarter.reliability;

import java.util.stream.Collectors;

/**
 * The lock stores the harness runs this starter's lock on, each with the fault of the
 * store that applies to it.
 */
enum Backend {

	/** {@code RedisLockStore} on one {@code redis-server} with AOF and fsync always. */
	REDIS("`RedisLockStore` on one Redis (AOF, fsync always)", "restart of the lock Redis (AOF, fsync always)",
			"lock Redis restarts", false, true),

	/**
	 * {@code RedisLockStore} on a primary, a replica and three sentinels; the fault kills
	 * the primary and waits for the sentinels to promote the replica.
	 */
	SENTINEL("`RedisLockStore` on Redis Sentinel (a primary, a replica, three sentinels)",
			"shutdown of the primary (`SIGTERM`), replica promoted by the sentinels", "Sentinel failovers", true, true),

	/**
	 * {@code RedisLockStore} on a Redis Cluster of three masters with one replica each;
	 * the fault kills the master of a lock key's slot and waits for the cluster to
	 * promote its replica.
	 */
	CLUSTER("`RedisLockStore` on Redis Cluster (three masters, one replica each)",
			"`kill -9` of the master of a lock key's slot, replica promoted by the cluster", "Cluster failovers", true,
			true),

	/**
	 * {@code MemcachedLockStore} on one {@code memcached}; a restart loses every lock.
	 */
	MEMCACHED("`MemcachedLockStore` on one memcached", "restart of memcached (keeps nothing)", "memcached restarts",
			true, false),

	/**
	 * {@code DynamoDbLockStore} on DynamoDB Local with its data in a file, which a
	 * restart keeps.
	 */
	DYNAMODB("`DynamoDbLockStore` on DynamoDB Local (data in a file)", "restart of DynamoDB Local (keeps its file)",
			"DynamoDB Local restarts", false, false),

	/**
	 * {@code JdbcLockStore} on one PostgreSQL server, whose restart keeps every committed
	 * lock.
	 */
	JDBC("`JdbcLockStore` on PostgreSQL", "restart of PostgreSQL (`pg_ctl stop -m fast`, keeps its data)",
			"PostgreSQL restarts", false, false),

	/**
	 * {@code EtcdLockStore} on a three-member etcd cluster; the faults are
	 * {@link QuorumFaults}', which keep every granted lock.
	 */
	ETCD("`EtcdLockStore` on a three-member etcd cluster", "etcd faults"),

	/**
	 * {@code ZooKeeperLockStore} on a three-server ensemble; the faults are
	 * {@link QuorumFaults}', which keep every granted lock.
	 */
	ZOOKEEPER("`ZooKeeperLockStore` on a three-server ZooKeeper ensemble", "ZooKeeper faults");

	private final String description;

	private final String fault;

	private final String faultsRow;

	private final boolean faultLosesLocks;

	private final boolean redis;

	private final boolean quorum;

	Backend(String description, String fault, String faultsRow, boolean faultLosesLocks, boolean redis) {
		this(description, fault, faultsRow, faultLosesLocks, redis, false);
	}

	/**
	 * A store on a three-member consensus cluster, whose faults are {@link QuorumFaults}'
	 * and keep every granted lock.
	 */
	Backend(String description, String faultsRow) {
		this(description, "in turn "
				+ QuorumFaults.kinds().stream().map(QuorumFaults.Kind::description).collect(Collectors.joining("; ")),
				faultsRow, false, false, true);
	}

	private Backend(String description, String fault, String faultsRow, boolean faultLosesLocks, boolean redis,
			boolean quorum) {
		this.description = description;
		this.fault = fault;
		this.faultsRow = faultsRow;
		this.faultLosesLocks = faultLosesLocks;
		this.redis = redis;
		this.quorum = quorum;
	}

	/** What runs the lock, for the report. */
	String description() {
		return this.description;
	}

	/** The fault of the store, for the report's list of nemeses. */
	String fault() {
		return this.fault;
	}

	/**
	 * The faults inflicted, for the report: the number and {@link #fault()}, or for a
	 * consensus cluster the number of each kind of fault.
	 * @param faults the number of faults inflicted
	 * @return the faults, in words
	 */
	String faults(long faults) {
		if (!this.quorum) {
			return ReliabilityReport.n(faults) + " × " + this.fault;
		}
		StringBuilder kinds = new StringBuilder();
		for (QuorumFaults.Kind kind : QuorumFaults.kinds()) {
			kinds.append((kinds.length() > 0) ? ", " : "")
				.append(ReliabilityReport.n(kind.countIn(faults)))
				.append(" × ")
				.append(kind.description());
		}
		if (!QuorumFaults.kinds().contains(QuorumFaults.Kind.PARTITION_LEADER)) {
			kinds.append("; no network partition: this machine does not allow network namespaces");
		}
		return kinds.toString();
	}

	/**
	 * Whether the store runs on a three-member consensus cluster ({@link QuorumFaults}).
	 */
	boolean isQuorum() {
		return this.quorum;
	}

	/** The report's name for the number of faults of the store. */
	String faultsRow() {
		return this.faultsRow;
	}

	/**
	 * Whether the store's fault may lose locks that were granted: overlaps across it are
	 * outside the promise ("while the store keeps its data").
	 */
	boolean faultLosesLocks() {
		return this.faultLosesLocks;
	}

	/** Whether lock keys can be watched with {@code PTTL}. */
	boolean isRedis() {
		return this.redis;
	}

}
