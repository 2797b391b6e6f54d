package dev.lockstarter.store.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.HashedKeys;
import dev.lockstarter.store.InspectableLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import dev.lockstarter.store.StoredLock;
import org.springframework.util.Assert;

import static dev.lockstarter.store.etcd.EtcdTransactions.first;
import static dev.lockstarter.store.etcd.EtcdTransactions.withLease;

/**
 * {@link LockStore} on etcd v3, through jetcd.
 * <p>
 * A lock is the key {@code <prefix><lock key>} whose value is the owner token and the
 * lock's time-to-live as a duration ({@link EtcdValues}), bound to a lease that lives
 * longer than the lock ({@link EtcdLeases}). Every operation is one etcd transaction,
 * which compares and writes atomically on the leader, committed by a majority:
 * <ul>
 * <li>acquire: {@code If(version(key) = 0) Then(Put(key, token+ttl, lease))
 * Else(Get(key))}. A holder found is judged by the observed-silence rule (below); one
 * whose record stayed unchanged for its whole time-to-live is taken over by a second
 * transaction conditioned on the {@code mod_revision} it was seen with, so that of
 * several contenders exactly one wins, and none wins if the holder wrote in between; any
 * other holder answers its remaining time.</li>
 * <li>release: {@code If(held by token) Then(Delete(key))}; extend: the same condition,
 * then {@code Put} of the token and the new time-to-live, bound to a lease that lives
 * long enough. Ownership is a range of values ({@link EtcdValues#heldBy}), so neither
 * reads first.</li>
 * <li>a result: the key {@code <results prefix><lock key>}, written under the same
 * condition on the lock key, with a lease of its own.</li>
 * <li>several keys at once ({@link MultiKeyLockStore}): one transaction comparing every
 * key, all or none.</li>
 * <li>the locks held ({@link InspectableLockStore}): range reads of the lock prefix, and
 * a force-release that deletes a lock key ({@link EtcdLockInspection}).</li>
 * </ul>
 * <p>
 * <b>Fencing tokens</b> are the revision of the write that took the lock: etcd's revision
 * is one counter for the whole cluster, raised by every write and kept across leader
 * changes and restarts, so a key's tokens strictly increase across owners.
 * <p>
 * <b>Expiry</b> is decided by no wall clock. A lock's record is versioned by etcd's
 * {@code mod_revision}, which every {@code Put} changes, an extension included. A
 * contender takes a lock over only once it has seen the same {@code mod_revision} stay
 * unchanged for the holder's whole time-to-live, on its own monotonic clock
 * ({@link ObservedExpiry}); the holder counts its time-to-live from when it sent the
 * write the store confirmed. So clocks need only run at about the same rate, never agree;
 * a contender that first sees a crashed holder's record waits one time-to-live from that
 * first sight. Independently, etcd itself deletes the key of a holder that never released
 * it once the key's lease ends, counted by the etcd leader and never sooner than the
 * time-to-live plus one second after the write: a key abandoned long ago is usually found
 * free, with no wait. An extension or a result is refused (nothing written) once this
 * JVM's own lock outlived its time-to-live by its own count, and such a lock's release
 * answers {@code false}.
 * <p>
 * <b>Results</b> expire on the wall clock given to the constructor: a result is a cached
 * answer, not mutual exclusion, and a skewed clock only keeps it somewhat shorter or
 * longer.
 * <p>
 * Every call waits at most the given timeout for its requests, then fails with
 * {@link LockStoreException}. The store does not own the client: close the client after
 * the store.
 *
 * @since 0.1.0
 */
public class EtcdLockStore implements ResultStoringLockStore, MultiKeyLockStore, ReleaseNotifyingLockStore,
		InspectableLockStore, AutoCloseable {

	/** The default prefix of the lock keys. */
	public static final String DEFAULT_PREFIX = "/lock-starter/locks/";

	/** The default prefix of the keys of the results kept next to locks. */
	public static final String DEFAULT_RESULTS_PREFIX = "/lock-starter/results/";

	/** The longest lock key, in bytes of UTF-8, kept as it is; longer keys are hashed. */
	static final int MAX_KEY_BYTES = 512;

	private static final int ACQUIRE_ATTEMPTS = 3;

	private final KV kv;

	private final ByteSequence prefix;

	private final ByteSequence resultsPrefix;

	private final EtcdCalls calls;

	private final EtcdTransactions transactions;

	private final EtcdResults results;

	private final EtcdReleaseWatch releaseWatch;

	private final ObservedExpiry observed;

	private final EtcdLockInspection inspection;

	/**
	 * Create a store on the given client, with the default prefixes.
	 * @param client the etcd client, whose endpoints, TLS and credentials are set
	 * @param timeout the longest time a call waits for etcd, positive
	 */
	public EtcdLockStore(Client client, Duration timeout) {
		this(client, DEFAULT_PREFIX, DEFAULT_RESULTS_PREFIX, timeout, Clock.systemUTC());
	}

	/**
	 * Create a store on the given client.
	 * @param client the etcd client, whose endpoints, TLS and credentials are set
	 * @param prefix the prefix of the lock keys, not empty
	 * @param resultsPrefix the prefix of the result keys, not empty, neither a prefix of
	 * {@code prefix} nor starting with it
	 * @param timeout the longest time a call waits for etcd, positive
	 * @param clock the wall clock that decides only when a kept result expires; a lock's
	 * expiry never reads it
	 */
	public EtcdLockStore(Client client, String prefix, String resultsPrefix, Duration timeout, Clock clock) {
		this(client, prefix, resultsPrefix, timeout, clock, new ObservedExpiry());
	}

	/**
	 * Create a store that judges its locks' expiry with the given record of sightings.
	 */
	EtcdLockStore(Client client, String prefix, String resultsPrefix, Duration timeout, Clock clock,
			ObservedExpiry observed) {
		Assert.notNull(client, "'client' must not be null");
		Assert.hasLength(prefix, "'prefix' must not be empty");
		Assert.hasLength(resultsPrefix, "'resultsPrefix' must not be empty");
		Assert.isTrue(!prefix.startsWith(resultsPrefix) && !resultsPrefix.startsWith(prefix),
				() -> "'prefix' and 'resultsPrefix' must not start with one another: '" + prefix + "', '"
						+ resultsPrefix + "'");
		Assert.notNull(clock, "'clock' must not be null");
		Assert.notNull(observed, "'observed' must not be null");
		this.kv = client.getKVClient();
		this.prefix = utf8(prefix);
		this.resultsPrefix = utf8(resultsPrefix);
		this.calls = new EtcdCalls(timeout);
		this.transactions = new EtcdTransactions(this.kv, this.calls,
				new EtcdLeases(client.getLeaseClient(), this.calls));
		this.releaseWatch = new EtcdReleaseWatch(client.getWatchClient(), this.prefix);
		this.observed = observed;
		this.results = new EtcdResults(this, this.transactions, observed, clock);
		this.inspection = new EtcdLockInspection(this.kv, this.prefix, this.calls, observed);
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		return acquire(key, token, ttl, false).acquisition();
	}

	@Override
	public AcquireReplyWithResult tryAcquireReadingResult(String key, String token, Duration ttl) {
		return acquire(key, token, ttl, true);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A lock whose record this store has seen unchanged for its whole time-to-live (from
	 * when it sent it, if it wrote it; the deletion answers the record as it was) is
	 * deleted if it is still the caller's, but was not held to the end: the answer is
	 * {@code false}.
	 */
	@Override
	public boolean release(String key, String token) {
		String stored = storedKey(key);
		ByteSequence lockKey = lockKey(key);
		long deadline = this.calls.deadline();
		Cmp[] held = EtcdValues.heldBy(lockKey, token);
		DeleteOption withPrevious = DeleteOption.builder().withPrevKV(true).build();
		TxnResponse response = this.transactions.commit(deadline, "release", key,
				(lease) -> this.transactions.txn().If(held).Then(Op.delete(lockKey, withPrevious)), null);
		if (!response.isSucceeded()) {
			this.observed.forget(stored, token);
			return false;
		}
		List<KeyValue> previous = response.getDeleteResponses().get(0).getPrevKvs();
		boolean outlived = !previous.isEmpty() && remaining(stored, previous.get(0)) <= 0;
		this.observed.forget(stored);
		return !outlived;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Refused, with nothing written, while the record is still as this store last wrote
	 * it and this store has outlived that write's time-to-live by its own count: another
	 * owner may take it over. A record that another instance wrote with the caller's
	 * token since (a renewal of a detached lease) is extended.
	 */
	@Override
	public boolean extend(String key, String token, Duration ttl) {
		String stored = storedKey(key);
		ByteSequence lockKey = lockKey(key);
		ByteSequence value = EtcdValues.lockValue(token, millis(ttl));
		long deadline = this.calls.deadline();
		Long outlived = this.observed.outlivedVersion(stored, token);
		Cmp[] held = EtcdValues.heldBy(lockKey, token, outlived);
		long sentAt = this.observed.now();
		TxnResponse response = this.transactions.commit(deadline, "extend", key,
				(lease) -> this.transactions.txn().If(held).Then(Op.put(lockKey, value, withLease(lease))), ttl);
		if (response.isSucceeded()) {
			this.observed.wrote(stored, token, response.getHeader().getRevision(), sentAt, ttl);
		}
		else if (outlived == null) {
			// Not the caller's any longer; an outlived write stays counted as it was
			this.observed.forget(stored, token);
		}
		return response.isSucceeded();
	}

	@Override
	public Duration timeToExpiry(String key) {
		String stored = storedKey(key);
		ByteSequence lockKey = lockKey(key);
		GetResponse response = this.calls.await(this.kv.get(lockKey), this.calls.deadline(),
				"read the time to expiry of", key);
		KeyValue holder = first(response);
		if (holder == null) {
			return Duration.ZERO;
		}
		long remaining = remaining(stored, holder);
		return (remaining > 0) ? Duration.ofNanos(remaining) : Duration.ZERO;
	}

	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		return this.results.keep(key, token, result, ttl, false);
	}

	@Override
	public boolean releaseKeepingResult(String key, String token, byte[] result, Duration ttl) {
		return this.results.keep(key, token, result, ttl, true);
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		return this.results
			.read(this.calls.await(this.kv.get(resultKey(key)), this.calls.deadline(), "read the result of", key));
	}

	@Override
	public MultiKeyAcquireReply tryAcquireAll(List<String> keys, String token, Duration ttl) {
		Assert.notEmpty(keys, "'keys' must not be empty");
		return new EtcdMultiKeyAcquisition(this, keys.stream().map(this::lockKey).toList(), keys, token, ttl).acquire();
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
	public Subscription subscribe(String key, Runnable listener) {
		Assert.notNull(listener, "'listener' must not be null");
		return this.releaseWatch.subscribe(lockKey(key), listener);
	}

	/**
	 * Stop the release notifications. The client stays open.
	 */
	@Override
	public void close() {
		this.releaseWatch.close();
	}

	/**
	 * Return the etcd key of a lock: the prefix and the key, or its hash if the key is
	 * longer than 512 bytes of UTF-8.
	 * @param key the store key
	 * @return the etcd key
	 */
	public ByteSequence lockKey(String key) {
		return this.prefix.concat(utf8(storedKey(key)));
	}

	/**
	 * Return the etcd key of the result kept next to a lock.
	 * @param key the store key
	 * @return the etcd key
	 */
	public ByteSequence resultKey(String key) {
		return this.resultsPrefix.concat(utf8(storedKey(key)));
	}

	private AcquireReplyWithResult acquire(String key, String token, Duration ttl, boolean readResult) {
		String stored = storedKey(key);
		ByteSequence lockKey = lockKey(key);
		ByteSequence value = EtcdValues.lockValue(token, millis(ttl));
		long deadline = this.calls.deadline();
		Op[] reads = readResult
				? new Op[] { Op.get(lockKey, GetOption.DEFAULT), Op.get(resultKey(key), GetOption.DEFAULT) }
				: new Op[] { Op.get(lockKey, GetOption.DEFAULT) };
		Cmp absent = new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.version(0));
		Cmp free = absent;
		byte @Nullable [] kept = null;
		for (int attempt = 0; attempt < ACQUIRE_ATTEMPTS; attempt++) {
			Cmp condition = free;
			long sentAt = this.observed.now();
			TxnResponse response = this.transactions.commit(deadline, "acquire", key,
					(lease) -> this.transactions.txn()
						.If(condition)
						.Then(thenPut(lockKey, value, lease, readResult ? reads[1] : null))
						.Else(reads),
					ttl);
			if (readResult && attempt == 0) {
				kept = this.results.read(response);
			}
			if (response.isSucceeded()) {
				this.observed.wrote(stored, token, response.getHeader().getRevision(), sentAt, ttl);
				return new AcquireReplyWithResult(AcquireReply.acquired(response.getHeader().getRevision()), kept);
			}
			KeyValue holder = first(response.getGetResponses().get(0));
			if (holder == null) {
				// Released or deleted since the condition was built
				free = absent;
				continue;
			}
			long remaining = remaining(stored, holder);
			if (remaining > 0) {
				return new AcquireReplyWithResult(AcquireReply.held(Duration.ofNanos(remaining)), kept);
			}
			// Seen unchanged for its whole time-to-live: take it over unless it changes
			free = new Cmp(lockKey, Cmp.Op.EQUAL, CmpTarget.modRevision(holder.getModRevision()));
		}
		// Lost every race for a key that kept changing hands: held, for an unknown time
		return new AcquireReplyWithResult(AcquireReply.held(Duration.ofMillis(-1)), kept);
	}

	private static Op[] thenPut(ByteSequence lockKey, ByteSequence value, long lease, @Nullable Op alsoRead) {
		Op put = Op.put(lockKey, value, withLease(lease));
		return (alsoRead != null) ? new Op[] { put, alsoRead } : new Op[] { put };
	}

	/**
	 * Judge a holder's record that a read found, by the observed-silence rule.
	 * @return the nanoseconds until it may be taken over, zero or less once it may
	 */
	long remaining(String stored, KeyValue holder) {
		ByteSequence value = holder.getValue();
		return this.observed.remaining(stored, EtcdValues.owner(value), holder.getModRevision(), EtcdValues.ttl(value));
	}

	ObservedExpiry observed() {
		return this.observed;
	}

	EtcdTransactions transactions() {
		return this.transactions;
	}

	/**
	 * Return a time-to-live in whole milliseconds, rounded up, so that no reader counts a
	 * shorter one than its holder.
	 */
	static long millis(Duration ttl) {
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.isTrue(!ttl.isZero() && !ttl.isNegative(), () -> "'ttl' must be positive, was " + ttl);
		long millis = ttl.toMillis();
		return (ttl.minusMillis(millis).isZero()) ? millis : millis + 1;
	}

	static String storedKey(String key) {
		Assert.notNull(key, "'key' must not be null");
		return HashedKeys.limit(key, MAX_KEY_BYTES);
	}

	private static ByteSequence utf8(String text) {
		return ByteSequence.from(text, StandardCharsets.UTF_8);
	}

}
