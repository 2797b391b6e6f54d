package dev.lockstarter.store.memcached;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import net.rubyeye.xmemcached.GetsResponse;
import net.rubyeye.xmemcached.MemcachedClient;
import net.rubyeye.xmemcached.XMemcachedClientBuilder;
import net.rubyeye.xmemcached.command.BinaryCommandFactory;
import net.rubyeye.xmemcached.impl.KetamaMemcachedSessionLocator;
import net.rubyeye.xmemcached.utils.Protocol;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.util.Assert;

/**
 * {@link LockStore} on Memcached, through the xmemcached client with the binary protocol.
 * <p>
 * A lock is an item whose value is {@code "lock=<millis>:<write>:<token>"}
 * ({@link MemcachedLockValue}): the lock's time-to-live as a duration, never a point in
 * time, a number drawn anew for every write, and the owner token. The item's
 * <b>version</b> is that number: every write of the item ({@code add}, {@code cas})
 * changes it, and this store knows the version of its own writes (Memcached's CAS value,
 * which also changes with every write and conditions every write, is not answered by a
 * store command).
 * <ul>
 * <li>acquire: {@code add}, which only stores the item if the key is absent (one round
 * trip). If the key is present, a {@code gets} reads the holder and the CAS value, and
 * the holder is judged by the {@linkplain ObservedExpiry observed-silence rule}: the lock
 * may be taken over only once this store has seen that same version stay unchanged for
 * the holder's whole time-to-live on this JVM's monotonic clock (from when it sent it, if
 * this store wrote it; a write with the caller's own token by another instance is counted
 * from its first sight, as anyone's). Until then the conflict answers the time left by
 * that count; after, the lock is taken over with a {@code cas} on the CAS value read,
 * which fails if the holder renewed in between, and of several clients taking over the
 * same lock exactly one wins. A conflict costs two round trips ({@code add},
 * {@code gets}).</li>
 * <li>release: {@code gets}, then, only if the value holds the caller's token, a binary
 * protocol {@code delete} with that item's CAS value; the delete fails if anyone changed
 * the item in between, and the store reads it again. A lock that outlived its
 * time-to-live by this JVM's count is deleted all the same, but the release answers
 * {@code false}.</li>
 * <li>extend: {@code gets}, then, only if the value holds the caller's token, a
 * {@code cas} that writes the value again with the new time-to-live. It is a write, not a
 * {@code touch}, so that the version changes and every contender starts its count again.
 * A lock whose record read outlived its time-to-live by this JVM's count (from when its
 * acquisition or extension was sent, if this store wrote it) is never extended: a
 * contender may already have taken it over, or may be about to.</li>
 * <li>time to expiry: a {@code gets} of the lock item, changing nothing in the store,
 * answering the time left by the same rule, or zero if the item is absent.</li>
 * <li>put result: {@code gets} of the lock, then, only if it holds the caller's token and
 * has not outlived its time-to-live by this JVM's count, a {@code set} of the result item
 * {@code "#result:" + base64url(sha256(key))}, whose value is the result's expiry time (8
 * bytes, epoch milliseconds on this store's wall clock) followed by the result. The owner
 * check and the write are two steps: a lock taken over between them can have its result
 * written by the holder it was taken from. Results are limited by the server's item size
 * (1 MB by default).</li>
 * </ul>
 * The text protocol's {@code delete} ignores CAS values, so the client must use the
 * binary protocol; the constructor checks it.
 * <p>
 * <b>Expiry</b> is decided by no application server's wall clock. A contender counts a
 * holder's time-to-live on its own monotonic clock from when it first saw the holder's
 * version, which is after the holder sent that write, and the holder counts its lease
 * from when it sent the write; so all that must hold is that clocks <em>run</em> at about
 * the same rate (within about 1 %, which the lease's loss margin covers), never that they
 * agree. What the rule costs is time: a contender that first sees a lock whose holder
 * crashed waits a whole time-to-live from that sight. Mutual exclusion relies on this
 * rule alone.
 * <p>
 * <b>Memcached's own expiry</b> is the backstop that frees abandoned keys: the store
 * counts it, not the clients, so a key whose holder crashed long ago is gone and is taken
 * at once by {@code add}, without the contender's wait. It is set to the time-to-live
 * rounded up to whole seconds plus three seconds, and must never end before the holder's
 * lease. The server counts it in whole seconds on a clock that a timer advances about
 * once a second (on its monotonic clock), and that timer drifts later by about a
 * millisecond a tick; when it crosses a second boundary, the clock jumps two seconds at
 * once. An item can therefore expire up to two seconds before its relative expiry time,
 * plus however late the timer runs: with three seconds added, it lives at least its
 * time-to-live plus one second, less however late the timer runs, on the server's count
 * from when it received the write, which is after the holder sent it. This assumes that
 * the server's timer is never over a second late (a server stalled for over a second). A
 * server timer that runs up to 1 % faster than the holder's clock is covered, as a
 * contender's clock is, by the lease's loss margin. Time-to-lives over
 * {@linkplain #MAX_TTL 30 days less three seconds} are rejected, because Memcached reads
 * expiry times over 30 days as absolute Unix times.
 * <p>
 * <b>Results</b> are not mutual exclusion: their expiry time is written and compared on
 * the wall clock given to the constructor, so an instance whose clock runs ahead sees a
 * result expire that much early, and one whose clock runs behind sees it that much later,
 * until Memcached's own expiry (set as for a lock) removes it.
 * <p>
 * <b>Keys</b> are used as Memcached keys when they are at most 250 printable ASCII
 * characters; others (spaces, control characters, non-ASCII, longer keys) are replaced by
 * {@code "#sha256:"} and the Base64url SHA-256 of their UTF-8 bytes, so any key is safe
 * and distinct keys remain distinct locks. Keys never reach the wire as text, so no key
 * can inject a command.
 * <p>
 * <b>Several servers</b>: keys are spread with consistent (ketama) hashing. The client
 * built by {@link #create} runs in failure mode: a server that is down fails the
 * operations on its keys ({@link LockStoreException}, fail closed) instead of moving them
 * to another server, where a second owner could acquire a lock that the first server
 * still holds.
 * <p>
 * <b>What is not promised</b>: Memcached is a cache. A lock is lost, and can be acquired
 * by a second owner, when the server evicts it under memory pressure (run Memcached with
 * {@code -M} so that it answers errors instead of evicting), when the server restarts, or
 * when a server that is unreachable for some clients only is taken out of the ring by a
 * client not in failure mode. The store issues no fencing tokens, since a counter in
 * Memcached can be lost in the same ways, and does not announce releases: waiters poll.
 *
 * @since 0.1.0
 */
public class MemcachedLockStore implements ResultStoringLockStore, DisposableBean {

	/** The longest time-to-live Memcached can keep as a relative expiry time. */
	public static final Duration MAX_TTL = Duration.ofDays(30).minusSeconds(3);

	/** The largest relative expiry time, in seconds: 30 days. */
	private static final int MAX_RELATIVE_EXPIRY = (int) Duration.ofDays(30).toSeconds();

	/**
	 * How often an operation that lost a race against a concurrent change reads again.
	 */
	private static final int MAX_ATTEMPTS = 5;

	private final MemcachedCalls calls;

	private final Clock clock;

	private final ObservedExpiry observed;

	private final boolean ownsClient;

	/**
	 * Create a store on the given client, which must use the binary protocol. The caller
	 * keeps ownership of the client and shuts it down.
	 * @param client the Memcached client
	 */
	public MemcachedLockStore(MemcachedClient client) {
		this(client, Clock.systemUTC());
	}

	/**
	 * Create a store on the given client, which must use the binary protocol. The caller
	 * keeps ownership of the client and shuts it down.
	 * @param client the Memcached client
	 * @param clock the wall clock that decides only when stored results expire; the
	 * expiry of locks never reads it
	 */
	public MemcachedLockStore(MemcachedClient client, Clock clock) {
		this(client, clock, new ObservedExpiry());
	}

	/**
	 * Create a store on the given client that counts the silence of holders with the
	 * given record of sightings.
	 * @param client the Memcached client
	 * @param clock the wall clock that decides only when stored results expire
	 * @param observed the record of the lock items this store has seen and written
	 */
	MemcachedLockStore(MemcachedClient client, Clock clock, ObservedExpiry observed) {
		this(client, clock, observed, false);
	}

	private MemcachedLockStore(MemcachedClient client, Clock clock, ObservedExpiry observed, boolean ownsClient) {
		Assert.notNull(client, "'client' must not be null");
		Assert.notNull(clock, "'clock' must not be null");
		Assert.notNull(observed, "'observed' must not be null");
		Assert.isTrue(client.getProtocol() == Protocol.Binary,
				() -> "The Memcached client must use the binary protocol, so that release and extend can be "
						+ "conditional on the item's CAS value; it uses the " + client.getProtocol() + " protocol");
		this.calls = new MemcachedCalls(client);
		this.clock = clock;
		this.observed = observed;
		this.ownsClient = ownsClient;
	}

	/**
	 * Create a store with a client of its own, which it shuts down in {@link #destroy()}:
	 * binary protocol, ketama consistent hashing over the servers, failure mode, and
	 * reconnection to a server that was lost once a second. The servers need not be
	 * reachable yet.
	 * @param servers the Memcached servers
	 * @param connectTimeout the longest time to wait for a connection to a server
	 * @param operationTimeout the longest time one operation waits for an answer
	 * @return the store
	 * @throws IllegalStateException if the client cannot be started
	 */
	public static MemcachedLockStore create(List<InetSocketAddress> servers, Duration connectTimeout,
			Duration operationTimeout) {
		Assert.notEmpty(servers, "'servers' must not be empty");
		Assert.noNullElements(servers, "'servers' must not contain null elements");
		Assert.isTrue(isPositive(connectTimeout), "'connectTimeout' must be positive");
		Assert.isTrue(isPositive(operationTimeout), "'operationTimeout' must be positive");
		XMemcachedClientBuilder builder = new XMemcachedClientBuilder(servers);
		builder.setName("lock-store");
		builder.setCommandFactory(new BinaryCommandFactory());
		builder.setSessionLocator(new KetamaMemcachedSessionLocator());
		builder.setFailureMode(true);
		builder.setConnectTimeout(connectTimeout.toMillis());
		builder.setOpTimeout(operationTimeout.toMillis());
		builder.setHealSessionInterval(1000);
		try {
			return new MemcachedLockStore(builder.build(), Clock.systemUTC(), new ObservedExpiry(), true);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not start the Memcached client for " + servers, ex);
		}
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		int expiry = expiry(ttl);
		String memcachedKey = MemcachedKeys.memcachedKey(key);
		for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
			MemcachedLockValue value = MemcachedLockValue.of(ttl, token);
			long sentAt = this.observed.now();
			if (this.calls.add("acquire", key, memcachedKey, expiry, value.encode())) {
				wrote(key, value, sentAt);
				return AcquireReply.acquired();
			}
			GetsResponse<String> current = this.calls.gets("acquire", key, memcachedKey);
			if (current == null) {
				// Released or expired since the add: try again
				continue;
			}
			MemcachedLockValue holder = MemcachedLockValue.parse(current.getValue());
			if (holder == null) {
				// Not a lock written by this store: never take it over
				return AcquireReply.held(Duration.ZERO);
			}
			long version = holder.version(current.getCas());
			if (holder.isOwnedBy(token)) {
				Long own = this.observed.ownRemaining(key, token, version);
				if (own != null && own > 0) {
					// This store's own write of this token, whose time-to-live runs
					return AcquireReply.acquired();
				}
				// Written elsewhere with this token, at a time this store cannot know, or
				// outlived: written anew below, as a lock that may be taken over
			}
			else {
				long remaining = this.observed.remaining(key, holder.token(), version, holder.ttl());
				if (remaining > 0) {
					return AcquireReply.held(Duration.ofNanos(remaining));
				}
			}
			// Unchanged for the holder's whole time-to-live: take it over, unless the
			// holder writes first
			long takeoverSentAt = this.observed.now();
			if (this.calls.cas("acquire", key, memcachedKey, expiry, value.encode(), current.getCas())) {
				wrote(key, value, takeoverSentAt);
				return AcquireReply.acquired();
			}
			// The holder renewed, another client took the lock over first, or it was
			// deleted: read again
		}
		return AcquireReply.held(Duration.ZERO);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A lock whose record this store has seen unchanged for its whole time-to-live (from
	 * when it sent it, if it wrote it) is freed if it is still the caller's, and the
	 * answer is {@code false}: the lease was lost.
	 */
	@Override
	public boolean release(String key, String token) {
		String memcachedKey = MemcachedKeys.memcachedKey(key);
		for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
			GetsResponse<String> current = this.calls.gets("release", key, memcachedKey);
			MemcachedLockValue holder = (current != null) ? MemcachedLockValue.parse(current.getValue()) : null;
			if (current == null || holder == null || !holder.isOwnedBy(token)) {
				this.observed.forget(key, token);
				return false;
			}
			boolean outlived = this.observed.remaining(key, token, holder.version(current.getCas()), holder.ttl()) <= 0;
			if (this.calls.delete("release", key, memcachedKey, current.getCas())) {
				this.observed.forget(key, token);
				return !outlived;
			}
			// Changed since the gets (extended, or taken over): read again
		}
		return false;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Refused, with nothing written, once the record read has stayed unchanged for its
	 * whole time-to-live by this store's count (from when it sent it, if it wrote it):
	 * another owner may take it over.
	 */
	@Override
	public boolean extend(String key, String token, Duration ttl) {
		int expiry = expiry(ttl);
		String memcachedKey = MemcachedKeys.memcachedKey(key);
		for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
			GetsResponse<String> current = this.calls.gets("extend", key, memcachedKey);
			MemcachedLockValue holder = (current != null) ? MemcachedLockValue.parse(current.getValue()) : null;
			if (current == null || holder == null || !holder.isOwnedBy(token)) {
				this.observed.forget(key, token);
				return false;
			}
			MemcachedLockValue value = MemcachedLockValue.of(ttl, token);
			long sentAt = this.observed.now();
			if (this.observed.remaining(key, token, holder.version(current.getCas()), holder.ttl()) <= 0) {
				// A contender may already take it over: write nothing
				return false;
			}
			if (this.calls.cas("extend", key, memcachedKey, expiry, value.encode(), current.getCas())) {
				wrote(key, value, sentAt);
				return true;
			}
			// Changed since the gets: read again
		}
		return false;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A {@code gets} of the lock item, which changes nothing in the store, bounded by the
	 * client's operation timeout; the holder is judged by the observed-silence rule, as
	 * {@link #tryAcquire} does. An item this store did not write, which no one can
	 * acquire, has no time-to-live to tell and answers {@link Duration#ZERO} too.
	 */
	@Override
	public Duration timeToExpiry(String key) {
		GetsResponse<String> current = this.calls.gets("read the time to expiry of", key,
				MemcachedKeys.memcachedKey(key));
		MemcachedLockValue holder = (current != null) ? MemcachedLockValue.parse(current.getValue()) : null;
		if (current == null || holder == null) {
			return Duration.ZERO;
		}
		long remaining = this.observed.remaining(key, holder.token(), holder.version(current.getCas()), holder.ttl());
		return Duration.ofNanos(Math.max(0, remaining));
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * The result's expiry time is written on this store's wall clock: results are not
	 * mutual exclusion, and an instance whose clock is off sees them expire that much
	 * early or late.
	 */
	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		Assert.notNull(result, "'result' must not be null");
		int expiry = expiry(ttl);
		GetsResponse<String> current = this.calls.gets("store the result of", key, MemcachedKeys.memcachedKey(key));
		MemcachedLockValue holder = (current != null) ? MemcachedLockValue.parse(current.getValue()) : null;
		if (current == null || holder == null || !holder.isOwnedBy(token)
				|| this.observed.remaining(key, token, holder.version(current.getCas()), holder.ttl()) <= 0) {
			return false;
		}
		byte[] value = ByteBuffer.allocate(Long.BYTES + result.length)
			.putLong(this.clock.millis() + Math.max(1, ttl.toMillis()))
			.put(result)
			.array();
		return this.calls.setBytes("store the result of", key, MemcachedKeys.resultKey(key), expiry, value);
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		byte[] value = this.calls.getBytes("read the result of", key, MemcachedKeys.resultKey(key));
		if (value == null || value.length < Long.BYTES) {
			return null;
		}
		ByteBuffer buffer = ByteBuffer.wrap(value);
		if (this.clock.millis() - buffer.getLong() >= 0) {
			return null;
		}
		byte[] result = new byte[buffer.remaining()];
		buffer.get(result);
		return result;
	}

	private void wrote(String key, MemcachedLockValue value, long sentAt) {
		Long write = value.write();
		Assert.state(write != null, "A value written has a write number");
		this.observed.wrote(key, value.token(), write, sentAt, value.ttl());
	}

	/**
	 * Shut the client down if this store created it ({@link #create}); a client given to
	 * the constructor is left to its owner.
	 * @throws IOException if the client fails to shut down
	 */
	@Override
	public void destroy() throws IOException {
		if (this.ownsClient) {
			this.calls.shutdown();
		}
	}

	/**
	 * Return the Memcached key under which a lock key is stored.
	 * @param key the store key
	 * @return the Memcached key: the key itself, or its hash
	 */
	public static String memcachedKey(String key) {
		Assert.notNull(key, "'key' must not be null");
		return MemcachedKeys.memcachedKey(key);
	}

	/**
	 * Return Memcached's relative expiry time for a lock: the time-to-live rounded up to
	 * whole seconds, plus two seconds for the server's clock, which can jump two seconds
	 * at one tick, plus one second for a late tick.
	 */
	private static int expiry(Duration ttl) {
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.isTrue(isPositive(ttl), () -> "'ttl' must be positive, was " + ttl);
		Assert.isTrue(ttl.compareTo(MAX_TTL) <= 0, () -> "Memcached locks cannot have a time-to-live over " + MAX_TTL
				+ " (30 days less three seconds): Memcached reads longer expiry times as absolute times; was " + ttl);
		long seconds = (ttl.toMillis() + 999) / 1000 + 3;
		return (int) Math.min(seconds, MAX_RELATIVE_EXPIRY);
	}

	private static boolean isPositive(Duration duration) {
		return !duration.isZero() && !duration.isNegative();
	}

}
