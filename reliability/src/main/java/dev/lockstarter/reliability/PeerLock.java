package dev.lockstarter.reliability;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The peer libraries' locks that the harness runs beside this starter's, each on the
 * servers of a {@link Backend}, set up as its documentation recommends, and judged by
 * what its library promises ({@link WorkerLock.Holding#isHeld()}).
 */
enum PeerLock {

	/** Redisson's {@code RLock}, watchdog on, on one Redis. */
	REDISSON_RLOCK("redisson-rlock", Backend.REDIS, "Redisson `RLock`", false, Texts.REDISSON_SETUP,
			Texts.REDISSON_HELD),

	/** Redisson's {@code RFencedLock}, watchdog on, on one Redis. */
	REDISSON_FENCED("redisson-fenced", Backend.REDIS, "Redisson `RFencedLock`", true, Texts.REDISSON_FENCED_SETUP,
			Texts.REDISSON_HELD),

	/** Redisson's {@code RLock} on Redis Sentinel. */
	REDISSON_RLOCK_SENTINEL("redisson-rlock-sentinel", Backend.SENTINEL, "Redisson `RLock`", false,
			Texts.REDISSON_SETUP, Texts.REDISSON_HELD),

	/** Redisson's {@code RFencedLock} on Redis Sentinel. */
	REDISSON_FENCED_SENTINEL("redisson-fenced-sentinel", Backend.SENTINEL, "Redisson `RFencedLock`", true,
			Texts.REDISSON_FENCED_SETUP, Texts.REDISSON_HELD),

	/** Spring Integration's {@code RedisLockRegistry}, spin-lock mode. */
	SPRING_INTEGRATION_REDIS_SPIN("si-redis-spin", Backend.REDIS,
			"Spring Integration `RedisLockRegistry` (`SPIN_LOCK`)", false, Texts.si("SPIN_LOCK"), Texts.SI_HELD),

	/** Spring Integration's {@code RedisLockRegistry}, pub/sub mode. */
	SPRING_INTEGRATION_REDIS_PUB_SUB("si-redis-pubsub", Backend.REDIS,
			"Spring Integration `RedisLockRegistry` (`PUB_SUB_LOCK`)", false, Texts.si("PUB_SUB_LOCK"), Texts.SI_HELD),

	/** ShedLock's Redis provider through its {@code LockingTaskExecutor}. */
	SHEDLOCK_REDIS("shedlock-redis", Backend.REDIS, "ShedLock `RedisLockProvider`", false, Texts.SHEDLOCK_REDIS_SETUP,
			Texts.SHEDLOCK_HELD),

	/** Spring Integration's {@code JdbcLockRegistry} on PostgreSQL. */
	SPRING_INTEGRATION_JDBC("si-jdbc", Backend.JDBC, "Spring Integration `JdbcLockRegistry`", false,
			Texts.SI_JDBC_SETUP, Texts.SI_HELD),

	/** ShedLock's JDBC provider on PostgreSQL through its {@code LockingTaskExecutor}. */
	SHEDLOCK_JDBC("shedlock-jdbc", Backend.JDBC, "ShedLock `JdbcTemplateLockProvider`", false,
			Texts.SHEDLOCK_JDBC_SETUP, Texts.SHEDLOCK_HELD),

	/** Spring Integration's {@code ZookeeperLockRegistry} on a three-server ensemble. */
	SPRING_INTEGRATION_ZOOKEEPER("si-zookeeper", Backend.ZOOKEEPER, "Spring Integration `ZookeeperLockRegistry`", false,
			Texts.SI_ZOOKEEPER_SETUP, Texts.SI_ZOOKEEPER_HELD),

	/** Curator's {@code InterProcessMutex} on a three-server ensemble. */
	CURATOR("curator", Backend.ZOOKEEPER, "Curator `InterProcessMutex`", false, Texts.CURATOR_SETUP,
			Texts.CURATOR_HELD),

	/** jetcd's lock service on a three-member etcd cluster. */
	JETCD("jetcd", Backend.ETCD, "jetcd lock service", false, Texts.JETCD_SETUP, Texts.JETCD_HELD);

	private final String scenarioName;

	private final Backend backend;

	private final String library;

	private final boolean fencing;

	private final String setup;

	private final String heldWhen;

	PeerLock(String scenarioName, Backend backend, String library, boolean fencing, String setup, String heldWhen) {
		this.scenarioName = scenarioName;
		this.backend = backend;
		this.library = library;
		this.fencing = fencing;
		this.setup = setup;
		this.heldWhen = heldWhen;
	}

	/**
	 * The peer lock of a worker's store argument.
	 * @param store the store argument, a {@link #scenarioName()}
	 * @return the peer lock, or {@code null} if the argument names none
	 */
	static @Nullable PeerLock named(String store) {
		for (PeerLock peer : values()) {
			if (peer.scenarioName.equals(store)) {
				return peer;
			}
		}
		return null;
	}

	/** The name of its scenarios and the worker's store argument. */
	String scenarioName() {
		return this.scenarioName;
	}

	/** The servers it runs on. */
	Backend backend() {
		return this.backend;
	}

	/** The library and its lock, for the report. */
	String library() {
		return this.library;
	}

	/** How it is set up and used, for the report. */
	String setup() {
		return this.setup;
	}

	/** When a section counts as held as promised, for the report. */
	String heldWhen() {
		return this.heldWhen;
	}

	/** Whether it issues fencing tokens. */
	boolean fencing() {
		return this.fencing;
	}

	/**
	 * Open the lock in a worker.
	 * @param address the servers' address, as {@link StoreUnderTest#address()} gives it
	 * @param ttl the harness's time-to-live: the lock's, its watchdog's or its session's
	 * @return the lock
	 */
	WorkerLock open(String address, Duration ttl) {
		return switch (this) {
			case REDISSON_RLOCK, REDISSON_RLOCK_SENTINEL -> RedisPeerLocks.redisson(this.backend, address, ttl, false);
			case REDISSON_FENCED, REDISSON_FENCED_SENTINEL -> RedisPeerLocks.redisson(this.backend, address, ttl, true);
			case SPRING_INTEGRATION_REDIS_SPIN -> RedisPeerLocks.springIntegration(address, ttl, false);
			case SPRING_INTEGRATION_REDIS_PUB_SUB -> RedisPeerLocks.springIntegration(address, ttl, true);
			case SHEDLOCK_REDIS -> RedisPeerLocks.shedLock(address, ttl);
			case SPRING_INTEGRATION_JDBC -> JdbcPeerLocks.springIntegration(address, ttl);
			case SHEDLOCK_JDBC -> JdbcPeerLocks.shedLock(address, ttl);
			case SPRING_INTEGRATION_ZOOKEEPER -> ZooKeeperPeerLocks.springIntegration(address, ttl);
			case CURATOR -> ZooKeeperPeerLocks.curator(address, ttl);
			case JETCD -> EtcdPeerLocks.jetcd(address, ttl);
		};
	}

	/**
	 * How each lock is set up, and when a section counts as held as promised, for the
	 * report. The versions are the build's.
	 */
	private static final class Texts {

		static final String WAIT = ", waiting up to 2 × TTL";

		static final String REDISSON = "Redisson 4.7.0, taken without a lease time so that its watchdog "
				+ "renews it, `lockWatchdogTimeout` = the TTL (a renewal every third of it)" + WAIT
				+ "; command and connect timeouts 2 s, the rest Redisson's defaults (an unsent command retried "
				+ "4 times, `checkLockSyncedSlaves` on)";

		static final String REDISSON_SETUP = "`getLock(name).tryLock(wait, unit)`; " + REDISSON;

		static final String REDISSON_FENCED_SETUP = "`getFencedLock(name).tryLockAndGetToken(wait, unit)`, "
				+ "its token written to the fenced register; " + REDISSON;

		static final String REDISSON_HELD = "`isHeldByCurrentThread()` after the exit, a query of the store: "
				+ "Redisson's guide promises that the watchdog keeps the lock for as long as its client lives";

		static final String SI = "Spring Integration 7.1.0, `obtain(key).tryLock(wait, unit)`" + WAIT;

		static final String SI_HELD = "an `unlock()` that does not throw: the registries report a lock "
				+ "that expired and was taken by another by `ConcurrentModificationException`, and the guide "
				+ "says that the protected data must then be taken as compromised";

		static final String SI_JDBC_SETUP = "`new JdbcLockRegistry(new DefaultLockRepository(dataSource), TTL)` "
				+ "with a `DataSourceTransactionManager` of its own, table `INT_LOCK` from the shipped PostgreSQL "
				+ "script, `idleBetweenTries` 100 ms (its default), no renewal (the guide leaves `renewLock` to "
				+ "the caller); " + SI + "; a Hikari pool, the driver's `socketTimeout` 2 s. Its repository "
				+ "judges expiry by the client's clock (`LocalDateTime.now()`)";

		static final String SHEDLOCK = "`DefaultLockingTaskExecutor.executeWithLock(task, "
				+ "new LockConfiguration(now, name, lockAtMostFor = TTL, lockAtLeastFor = 0))`, tried again every "
				+ "5 ms for up to 2 × TTL (ShedLock skips a locked task rather than waiting)";

		static final String SHEDLOCK_REDIS_SETUP = "ShedLock 7.10.1, `new RedisLockProvider(connectionFactory, "
				+ "environment)` as its README builds it, whose release is a plain `DEL` (compare-and-delete is "
				+ "an option of its builder, `safeUpdate`); " + SHEDLOCK + "; Lettuce command timeout 2 s";

		static final String SHEDLOCK_JDBC_SETUP = "ShedLock 7.10.1, `JdbcTemplateLockProvider` built with "
				+ "`usingDbTime()`, which its README recommends (the database's clock decides), and a `lockedBy` "
				+ "value per thread, each thread a node of its own (the default is the host name, every worker here "
				+ "runs on one host, and a node runs a task on one thread at a time); "
				+ "table `shedlock` from the README; " + SHEDLOCK + "; a Hikari pool, the driver's `socketTimeout` 2 s";

		static final String SHEDLOCK_HELD = "less than `lockAtMostFor` passed since just before the call that "
				+ "ran the section (monotonic clock): ShedLock promises a lock that lasts at most `lockAtMostFor`, "
				+ "and has no means to ask whether it still holds one";

		static final String CURATOR_CLIENT = "a Curator 5.9.0 client with a session timeout of the TTL, "
				+ "connection timeout 2 s, `ExponentialBackoffRetry(100 ms, 3)` (the getting-started guide's "
				+ "policy with its base sleep scaled from 1 s)";

		static final String CURATOR_SETUP = "`new InterProcessMutex(client, path).acquire(wait, unit)`" + WAIT + ", on "
				+ CURATOR_CLIENT;

		static final String CURATOR_HELD = "a `ConnectionStateListener` reported no `SUSPENDED` or `LOST` "
				+ "from before the acquisition to the question, the client is connected, and the thread owns the "
				+ "mutex: Curator's lock recipe and its tech note on pauses ask a holder to take the lock as lost "
				+ "once the connection is suspended";

		static final String SI_ZOOKEEPER_SETUP = "Spring Integration 7.0.5, `new ZookeeperLockRegistry(client)`, "
				+ "`obtain(key).tryLock(wait, unit)`" + WAIT + ", on " + CURATOR_CLIENT;

		static final String SI_ZOOKEEPER_HELD = "an `unlock()` that does not throw, as for the other registries. "
				+ "Its unlock is the mutex's release, which ignores a node that a session expiry already deleted: "
				+ "it reports a lost lock only when the servers cannot be reached at all";

		static final String JETCD_SETUP = "jetcd 0.8.6, per acquisition a lease of the TTL (1 s, etcd's unit) "
				+ "kept alive by `keepAlive(leaseId, observer)`, then `lock(name, leaseId)`" + WAIT
				+ " (a wait given up revokes the lease); release: `unlock`, then the lease revoked; every other "
				+ "call bounded by 2 s";

		static final String JETCD_HELD = "the lease still exists after the exit (`timeToLive`, asked of the "
				+ "store): the lock's key lives with the lease, and a lease never comes back once expired";

		private Texts() {
		}

		static String si(String mode) {
			return "`new RedisLockRegistry(connectionFactory, registryKey, expireAfter = TTL)`, `" + mode
					+ "`, no renewal scheduler (the guide describes one but asks for an expiry long enough for the "
					+ "work); " + SI + "; Lettuce command timeout 2 s";
		}

	}

}
