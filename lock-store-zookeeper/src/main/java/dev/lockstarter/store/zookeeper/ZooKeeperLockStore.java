package dev.lockstarter.store.zookeeper;

import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.StoredLock;
import dev.lockstarter.store.zookeeper.LockNodeWrites.Written;
import dev.lockstarter.store.zookeeper.NodeData.Lock;
import org.springframework.util.Assert;

/**
 * {@link LockStore} on Apache ZooKeeper 3.6 or later, through Apache Curator.
 * <p>
 * A lock is a <b>persistent</b> node {@code <base path>/locks/<key>} whose data holds the
 * owner token and the lock's time-to-live, a duration (never a point in time). A lock is
 * not bound to its holder's session: a holder whose session ends keeps its lock, and a
 * crashed holder's lock is taken over once its holder stopped writing it for its
 * time-to-live. Any client may release or extend a lock by its token.
 * <p>
 * <b>No wall clock decides when a lock expires</b>: a contender takes a lock over only
 * once it has seen the node's {@code mzxid} (the zxid of its last write, which every
 * acquisition and extension changes) stay unchanged for the holder's whole time-to-live,
 * counted on the contender's own monotonic clock from its first sight of that write
 * ({@link ObservedExpiry}), and then only with a write conditioned on the version it
 * read, which fails if the holder wrote in between. The holder counts its own writes from
 * when it sent them, so a lock that this JVM wrote expires for it, and for its own
 * contenders, exactly at its time-to-live; another JVM's contenders wait at least that
 * long. Clocks need only run at about the same rate (within about 1 % of each other),
 * never agree. The cost: a contender that first sees a lock whose holder crashed long ago
 * waits one whole time-to-live from that sight; a crashed holder's lock thus blocks a key
 * for at most its time-to-live after a contender's first look, about two time-to-lives
 * after the crash when the contender arrives just before it.
 * <p>
 * Lock nodes are not deleted on release or takeover: a released lock is a node holding
 * "free", so a write conditioned on the version read cannot apply to another incarnation
 * of the node (ZooKeeper conditions writes on versions only, which a deleted and
 * re-created node would repeat). A free node stays in ZooKeeper: a few dozen bytes per
 * key ever used. ZooKeeper's version is a signed 32-bit integer, and {@code -1} in a
 * write's condition means any version: no write of the store is conditioned on it, and
 * none leaves a node at it ({@link LockNodeWrites}); a node at {@code -2} is deleted and
 * created again in the one {@code multi} that writes it.
 * <ul>
 * <li>acquire: reads the node; creates it if missing, or, free or taken over (unchanged
 * for its time-to-live), writes it at the version read, so that of several contenders
 * exactly one wins. The fencing token is the zxid of the acquiring write (the node's
 * {@code mzxid}), which strictly increases across owners and leader elections.</li>
 * <li>release: writes "free" at the version read, if the owner token matches, or at once
 * at the version of this store's own last write as the holder ({@link OwnWrites}) while
 * that write's time-to-live runs; a lock that outlived its time-to-live is freed but the
 * release answers {@code false}. Extend writes new data at the version read, and is
 * refused, writing nothing, once this JVM's own lock outlived its time-to-live.</li>
 * <li>time to expiry: reads the node and answers by the same rule as acquire.</li>
 * <li>results: a persistent node {@code <base path>/results/<key>} (expiry time and
 * bytes), written in a {@code multi} that checks the lock node's version, so only the
 * holder writes one; an expired result is emptied when read. A result's expiry time is on
 * the wall clock of the store that wrote it (the {@code Clock} given at construction):
 * results are not mutual exclusion, and a skewed clock only ends a kept result early or
 * late.</li>
 * <li>release notifications: one persistent recursive watch on the lock nodes' parent,
 * whose data changes wake the waiters, or acquire for one from the event thread that
 * announced them ({@link ReleaseAcquisition}); multi-key locks: one {@code multi}
 * creating or writing every node, all or none, each key judged by the same rule as
 * acquire.</li>
 * <li>the locks held ({@link InspectableLockStore}): the lock nodes' names, then their
 * data; a force-release writes "free" at the version read
 * ({@link ZooKeeperLockInspection}).</li>
 * </ul>
 * <p>
 * Every operation waits at most the store's timeout, including Curator's retries, and
 * fails with {@link LockStoreException} past it. Keys are escaped into one path segment,
 * long keys hashed (see the reference guide).
 *
 * @since 0.1.0
 */
public class ZooKeeperLockStore implements ResultStoringLockStore, ReleaseHandoffLockStore, MultiKeyLockStore,
		InspectableLockStore, AutoCloseable {

	/** The default base path of the store's nodes. */
	public static final String DEFAULT_BASE_PATH = "/lock-starter";

	/** The default timeout of every operation. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	private static final int MAX_ROUNDS = 8;

	private final CuratorFramework client;

	private final LockNodes nodes;

	private final BoundedCalls calls;

	private final Clock clock;

	private final ReleaseWatch releaseWatch;

	private final ResultNodes results;

	private final OwnWrites ownWrites = new OwnWrites();

	private final LockNodeWrites writes;

	private final ObservedExpiry observed;

	private final ZooKeeperLockInspection inspection;

	/**
	 * Create a store on a started client, with the default base path and timeout. The
	 * caller keeps ownership of the client and closes it.
	 * @param client the Curator client, started
	 */
	public ZooKeeperLockStore(CuratorFramework client) {
		this(client, DEFAULT_BASE_PATH, DEFAULT_TIMEOUT, Clock.systemUTC());
	}

	/**
	 * Create a store on a started client.
	 * @param client the Curator client, started
	 * @param basePath the path under which the store keeps its nodes, starting with
	 * {@code /}
	 * @param timeout the longest time any operation waits, positive
	 * @param clock the wall clock that decides only when kept results expire (locks
	 * expire by the observed-silence rule on the monotonic clock, whatever the wall clock
	 * says)
	 */
	public ZooKeeperLockStore(CuratorFramework client, String basePath, Duration timeout, Clock clock) {
		this(client, basePath, timeout, clock, new ObservedExpiry());
	}

	/**
	 * Create a store on a started client that counts expiry with {@code observed}, for
	 * tests that drive the monotonic clock.
	 */
	ZooKeeperLockStore(CuratorFramework client, String basePath, Duration timeout, Clock clock,
			ObservedExpiry observed) {
		Assert.notNull(observed, "'observed' must not be null");
		Assert.notNull(client, "'client' must not be null");
		Assert.notNull(basePath, "'basePath' must not be null");
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isNegative() && !timeout.isZero(), "'timeout' must be positive");
		Assert.notNull(clock, "'clock' must not be null");
		this.client = client;
		this.nodes = new LockNodes(basePath);
		this.calls = new BoundedCalls(timeout);
		this.clock = clock;
		this.observed = observed;
		this.releaseWatch = new ReleaseWatch(client, this.nodes);
		this.results = new ResultNodes(this);
		this.writes = new LockNodeWrites(this);
		this.inspection = new ZooKeeperLockInspection(this);
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		checkArguments(key, token, ttl);
		return new SingleKeyAcquisition(this, key, token, ttl).run();
	}

	@Override
	public boolean release(String key, String token) {
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(token, "'token' must not be null");
		long deadline = this.calls.deadline();
		String path = this.nodes.lockPath(key);
		byte[] free = NodeData.free(token);
		// A lock whose record outlived its time-to-live by this store's count may be
		// freed, but its release answers false: another owner may have been in it
		OwnWrites.Write own = this.ownWrites.take(key, token);
		Long left = (own != null) ? this.observed.ownRemaining(key, token, own.mzxid()) : null;
		boolean outlived = left != null && left <= 0;
		boolean repeated = false;
		try {
			if (own != null && left != null && left > 0) {
				// Still as this store wrote it as the holder: nothing changed since
				Written set = this.writes.write("release", key, path, own.version(), own.mzxid(), free, deadline);
				if (set.code() != Code.BADVERSION) {
					return set.applied();
				}
				// Written since: by another holder that took it over, by another instance
				// renewing this token, or by this very write, repeated after its answer
				// was lost
				repeated = true;
			}
			for (int round = 0; round < MAX_ROUNDS; round++) {
				CuratorEvent read = read("release", key, path, deadline);
				if (Code.get(read.getResultCode()) == Code.NONODE) {
					return false;
				}
				if ((repeated || round > 0) && Arrays.equals(read.getData(), free)) {
					// This release, repeated after its answer was lost
					return !outlived;
				}
				Lock lock = NodeData.decodeLock(read.getData());
				if (lock == null || !lock.token().equals(token)) {
					return false;
				}
				Stat stat = read.getStat();
				outlived = this.observed.remaining(key, token, stat.getMzxid(), lock.ttl()) <= 0;
				Written set = this.writes.write("release", key, path, stat.getVersion(), stat.getMzxid(), free,
						deadline);
				if (set.code() != Code.BADVERSION) {
					return set.applied() && !outlived;
				}
			}
			return false;
		}
		finally {
			this.observed.forget(key, token);
		}
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		checkArguments(key, token, ttl);
		long deadline = this.calls.deadline();
		String path = this.nodes.lockPath(key);
		byte[] data = NodeData.lock(token, ttl);
		for (int round = 0; round < MAX_ROUNDS; round++) {
			CuratorEvent read = read("extend", key, path, deadline);
			if (Code.get(read.getResultCode()) == Code.NONODE) {
				forget(key, token);
				return false;
			}
			Lock lock = NodeData.decodeLock(read.getData());
			if (lock == null || !lock.token().equals(token)) {
				forget(key, token);
				return false;
			}
			// Written anew even when the node holds this very data (an extend repeated
			// after its answer was lost): every renewal must change the node's mzxid
			long sentAt = this.observed.now();
			Stat stat = read.getStat();
			if (this.observed.remaining(key, token, stat.getMzxid(), lock.ttl()) <= 0) {
				// Unchanged for its whole time-to-live by this store's count (from when
				// it was sent, if this store wrote it): anyone may take it over, so it
				// must not be renewed
				return false;
			}
			Written set = this.writes.write("extend", key, path, stat.getVersion(), stat.getMzxid(), data, deadline);
			if (set.applied()) {
				wrote(key, token, set.after(), sentAt, ttl);
				return true;
			}
			if (set.code() != Code.BADVERSION) {
				forget(key, token);
				return false;
			}
		}
		return false;
	}

	@Override
	public Duration timeToExpiry(String key) {
		Assert.notNull(key, "'key' must not be null");
		CuratorEvent read = read("read the time to expiry", key, this.nodes.lockPath(key), this.calls.deadline());
		Lock lock = (Code.get(read.getResultCode()) != Code.NONODE) ? NodeData.decodeLock(read.getData()) : null;
		if (lock == null) {
			return Duration.ZERO;
		}
		long remaining = this.observed.remaining(key, lock.token(), read.getStat().getMzxid(), lock.ttl());
		return Duration.ofNanos(Math.max(0, remaining));
	}

	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		checkArguments(key, token, ttl);
		Assert.notNull(result, "'result' must not be null");
		return this.results.keep(key, token, result, ttl, false);
	}

	@Override
	public boolean releaseKeepingResult(String key, String token, byte[] result, Duration ttl) {
		checkArguments(key, token, ttl);
		Assert.notNull(result, "'result' must not be null");
		// The lock node is written here, in a multi: a later release reads it first
		this.ownWrites.forget(key, token);
		boolean released = this.results.keep(key, token, result, ttl, true);
		if (released) {
			this.observed.forget(key, token);
		}
		return released;
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		Assert.notNull(key, "'key' must not be null");
		return this.results.get(key);
	}

	@Override
	public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		checkArguments(keys.get(0), token, ttl);
		return new MultiKeyAcquisition(this, keys, token, ttl).run();
	}

	@Override
	public boolean[] releaseAll(List<String> keys, String token) {
		Assert.notNull(keys, "'keys' must not be null");
		boolean[] released = new boolean[keys.size()];
		for (int i = 0; i < released.length; i++) {
			released[i] = release(keys.get(i), token);
		}
		return released;
	}

	@Override
	public List<StoredLock> holders(String keyPrefix, int limit) {
		return this.inspection.holders(keyPrefix, limit);
	}

	@Override
	public boolean forceRelease(String key) {
		return this.inspection.forceRelease(key);
	}

	@Override
	public Optional<CompletableFuture<AcquireReply>> tryAcquireOnRelease(String key, String token, Duration ttl) {
		checkArguments(key, token, ttl);
		return Optional.of(new ReleaseAcquisition(this, key, token, ttl).start());
	}

	@Override
	public Subscription subscribe(String key, Runnable listener) {
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(listener, "'listener' must not be null");
		return this.releaseWatch.subscribe(key, listener);
	}

	/**
	 * Stop the release notifications. The client stays open: its owner closes it.
	 */
	@Override
	public void close() {
		this.releaseWatch.close();
	}

	@Override
	public String toString() {
		return "ZooKeeperLockStore[" + this.nodes.basePath() + "]";
	}

	CuratorFramework client() {
		return this.client;
	}

	LockNodes nodes() {
		return this.nodes;
	}

	BoundedCalls calls() {
		return this.calls;
	}

	Clock clock() {
		return this.clock;
	}

	ObservedExpiry observed() {
		return this.observed;
	}

	LockNodeWrites writes() {
		return this.writes;
	}

	/**
	 * Record that the store confirmed this store's write of {@code key}'s lock node as
	 * the holder {@code token}, sent at {@code sentAt} (monotonic) and leaving the node
	 * as {@code stat} says.
	 */
	void wrote(String key, String token, Stat stat, long sentAt, Duration ttl) {
		this.observed.wrote(key, token, stat.getMzxid(), sentAt, ttl);
		this.ownWrites.wrote(key, token, stat.getVersion(), stat.getMzxid());
	}

	/**
	 * Forget this store's records of {@code key}'s node as {@code token}'s: it is no
	 * longer held by that token.
	 */
	private void forget(String key, String token) {
		this.observed.forget(key, token);
		this.ownWrites.forget(key, token);
	}

	/**
	 * Read a node, answering {@link Code#OK} or {@link Code#NONODE}.
	 */
	CuratorEvent read(String operation, String key, String path, long deadline) {
		return this.calls.call(operation, key, deadline,
				(callback) -> this.client.getData().inBackground(callback).forPath(path), Code.NONODE);
	}

	/**
	 * Create the persistent parents of the lock and result nodes, once, or again after a
	 * create found them missing.
	 */
	void createParents(String key, long deadline) {
		for (String path : List.of(this.nodes.locksPath(), this.nodes.resultsPath())) {
			this.calls.call("create the base path", key, deadline,
					(callback) -> this.client.create()
						.creatingParentsIfNeeded()
						.withMode(CreateMode.PERSISTENT)
						.inBackground(callback)
						.forPath(path),
					Code.NODEEXISTS);
		}
	}

	private static void checkArguments(String key, String token, Duration ttl) {
		Assert.notNull(key, "'key' must not be null");
		Assert.notNull(token, "'token' must not be null");
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.isTrue(!ttl.isNegative() && !ttl.isZero(), "'ttl' must be positive");
	}

}
