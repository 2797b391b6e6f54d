package dev.lockstarter.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.HashedKeys;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.util.Assert;

/**
 * {@link LockStore} on Amazon DynamoDB, through the AWS SDK for Java 2.x.
 * <p>
 * A lock is an item of a table whose partition key {@value #PARTITION_KEY} (a string) is
 * the lock key. Its attributes: {@value #OWNER} (the owner token), {@value #LEASE_MILLIS}
 * (the lease duration, milliseconds), {@value #RECORD_VERSION} (a random number that
 * every write of the lock, acquisition or extension, draws anew), {@value #FENCE} (the
 * fencing counter) and {@value #TTL} (epoch seconds, for DynamoDB's Time to Live). Each
 * operation is one conditional {@code UpdateItem} request, except the reads and a
 * takeover:
 * <ul>
 * <li>acquire: sets the owner, lease and version and increments the fencing counter, on
 * the condition {@code attribute_not_exists(owner)}. The new fencing token comes back in
 * the same answer ({@code ReturnValues=UPDATED_NEW}); on a conflict the holder's item
 * comes back with the {@code ConditionalCheckFailedException}
 * ({@code ReturnValuesOnConditionCheckFailure=ALL_OLD}). Acquisition and fencing token
 * are therefore one atomic write.</li>
 * <li>take over: once the holder's item has stayed unchanged for its whole lease (see
 * below), the same write on the condition that the owner and version are still the ones
 * seen; a holder's renewal in between makes it fail.</li>
 * <li>release: removes the owner, lease and version on the condition
 * {@code owner = :token}. The item itself stays, with its fencing counter, so that tokens
 * keep increasing.</li>
 * <li>extend: sets a new lease and version on the same condition.</li>
 * <li>put result: sets {@value #RESULT} (binary) and {@value #RESULT_EXPIRES_AT} (epoch
 * milliseconds) on the same condition, so only the holder stores one; the release leaves
 * them, and {@link #getResult} reads them with a strongly consistent {@code GetItem}. A
 * result is limited by DynamoDB's item size (400 KB with the rest of the item).</li>
 * <li>time to expiry: a strongly consistent {@code GetItem} of the holder, which changes
 * nothing in the table, judged as an acquisition judges it.</li>
 * </ul>
 * <p>
 * <b>Expiry</b> is decided by no wall clock ({@link DynamoDbExpiry#OBSERVED}, the
 * default, as Amazon's DynamoDB Lock Client does): a contender takes a lock over only
 * once it has seen the same owner and version stay unchanged for the holder's whole
 * lease, counted on its own monotonic clock ({@link ObservedExpiry}); a holder refuses to
 * extend a lock whose lease it has outlived by its own count, from when it sent its last
 * confirmed write. Clocks need only run at about the same rate. A contender that has
 * never seen a lock before counts its whole lease from that first sight, so a lock whose
 * holder crashed is taken over one lease after a contender first sees it: the first
 * contender for a key abandoned long ago waits one lease. Locks written by this store
 * instance expire for it exactly at their lease, counted from when the write was sent.
 * <p>
 * {@link DynamoDbExpiry#CLIENT_CLOCK} is an opt-in, <b>clock-dependent</b> mode: the item
 * also holds {@value #EXPIRES_AT} ({@code now + ttl} on the writer's wall clock, epoch
 * milliseconds), an acquisition is conditioned on
 * {@code attribute_not_exists(owner) OR expiresAt < :now}, and release, extend and put
 * result on {@code owner = :token AND expiresAt >= :now}. A client whose clock runs ahead
 * of the others by some amount takes their locks over that much early. All the clients of
 * a table must use the same mode.
 * <p>
 * <b>Fencing tokens</b> strictly increase per key: the counter starts at the acquiring
 * client's wall clock in microseconds and grows by one with each acquisition. The
 * {@value #TTL} attribute is set to {@value #RETENTION_HOURS} hours after the lock's
 * expiry on the writer's wall clock, so that with Time to Live enabled on it the items of
 * keys no longer used are deleted; a counter deleted that way starts again from the
 * clock, still above every token it issued unless a clock is more than a day behind.
 * These, and the expiry of results, stay on the wall clock: they do not decide who holds
 * a lock.
 * <p>
 * <b>Keys</b> are stored as they are, unless they are empty, longer than
 * {@value #MAX_KEY_BYTES} bytes of UTF-8 (DynamoDB allows 2048), or start with
 * {@code "#sha256:"}: those are replaced by {@code "#sha256:"} and the Base64url SHA-256
 * of their UTF-8 bytes.
 * <p>
 * DynamoDB is durable: locks survive restarts and failures of the service. A call blocks
 * for at most the client's API call timeout and retries; a failed call raises
 * {@link LockStoreException}. The store issues no release notifications: waiters poll.
 *
 * @since 0.1.0
 */
public class DynamoDbLockStore implements ResultStoringLockStore {

	/** The partition key attribute: the lock key, a string. */
	public static final String PARTITION_KEY = "pk";

	/** The owner token attribute. */
	public static final String OWNER = "owner";

	/** The lease duration attribute, in milliseconds. */
	public static final String LEASE_MILLIS = "leaseMillis";

	/** The record version attribute, a random number that every write draws anew. */
	public static final String RECORD_VERSION = "recordVersion";

	/**
	 * The expiry time attribute, in epoch milliseconds on the writer's wall clock;
	 * written by {@link DynamoDbExpiry#CLIENT_CLOCK} only.
	 */
	public static final String EXPIRES_AT = "expiresAt";

	/** The fencing counter attribute. */
	public static final String FENCE = "fence";

	/** The Time to Live attribute, in epoch seconds. */
	public static final String TTL = "ttl";

	/** The attribute of a result kept next to the lock, binary. */
	public static final String RESULT = "result";

	/** The attribute of the result's expiry time, in epoch milliseconds. */
	public static final String RESULT_EXPIRES_AT = "resultExpiresAt";

	static final int MAX_KEY_BYTES = 1024;

	static final int RETENTION_HOURS = 24;

	/** The most writes of one acquisition: a takeover, and another when it races. */
	private static final int MAX_WRITES = 4;

	private final DynamoDbCalls calls;

	private final Clock clock;

	private final DynamoDbExpiry expiry;

	private final ObservedExpiry observed;

	private final LockRequests requests;

	/**
	 * Create a store on the given client and table, with expiry that no wall clock
	 * decides ({@link DynamoDbExpiry#OBSERVED}). The caller keeps ownership of the client
	 * and closes it.
	 * @param client the DynamoDB client
	 * @param tableName the table, with a string partition key named
	 * {@value #PARTITION_KEY}
	 * @see #createTableIfNotExists()
	 */
	public DynamoDbLockStore(DynamoDbClient client, String tableName) {
		this(client, tableName, Clock.systemUTC());
	}

	/**
	 * Create a store on the given client and table, with expiry that no wall clock
	 * decides ({@link DynamoDbExpiry#OBSERVED}).
	 * @param client the DynamoDB client
	 * @param tableName the table, with a string partition key named
	 * {@value #PARTITION_KEY}
	 * @param clock the wall clock of the fencing counter's start, the {@value #TTL}
	 * attribute and the results' expiry
	 */
	public DynamoDbLockStore(DynamoDbClient client, String tableName, Clock clock) {
		this(client, tableName, clock, DynamoDbExpiry.OBSERVED);
	}

	/**
	 * Create a store on the given client and table, deciding expiry as {@code expiry}
	 * says. {@link DynamoDbExpiry#CLIENT_CLOCK} is clock-dependent: see its description.
	 * @param client the DynamoDB client
	 * @param tableName the table, with a string partition key named
	 * {@value #PARTITION_KEY}
	 * @param clock the wall clock of the fencing counter's start, the {@value #TTL}
	 * attribute and the results' expiry, and with {@link DynamoDbExpiry#CLIENT_CLOCK} of
	 * the locks' expiry too, shared in effect by every client of the table
	 * @param expiry how the store decides that a lock's time-to-live has passed
	 */
	public DynamoDbLockStore(DynamoDbClient client, String tableName, Clock clock, DynamoDbExpiry expiry) {
		this(client, tableName, clock, expiry, new ObservedExpiry());
	}

	DynamoDbLockStore(DynamoDbClient client, String tableName, Clock clock, DynamoDbExpiry expiry,
			ObservedExpiry observed) {
		Assert.notNull(client, "'client' must not be null");
		Assert.hasText(tableName, "'tableName' must not be empty");
		Assert.notNull(clock, "'clock' must not be null");
		Assert.notNull(expiry, "'expiry' must not be null");
		Assert.notNull(observed, "'observed' must not be null");
		this.calls = new DynamoDbCalls(client, tableName);
		this.clock = clock;
		this.expiry = expiry;
		this.observed = observed;
		this.requests = new LockRequests(tableName, clock, expiry);
	}

	/**
	 * Create the table if it does not exist, with on-demand capacity, and wait until it
	 * is active (up to two minutes); then enable Time to Live on {@value #TTL}. Meant for
	 * development and tests: production tables are better created with the rest of the
	 * infrastructure.
	 * @throws LockStoreException if the table cannot be created
	 */
	public void createTableIfNotExists() {
		DynamoDbTable.create(this.calls);
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		long lease = LockRequests.millis(ttl);
		LockItem seen = null;
		long remaining = 1;
		for (int write = 0; write < MAX_WRITES; write++) {
			long version = LockRequests.newVersion();
			long sentAt = this.observed.now();
			UpdateItemRequest request = this.requests.acquire(key, token, lease, version, seen);
			try {
				UpdateItemResponse response = this.calls.call("acquire", key,
						() -> this.calls.client().updateItem(request));
				this.observed.wrote(key, token, version, sentAt, ttl);
				return AcquireReply.acquired(LockItem.longValue(response.attributes(), FENCE));
			}
			catch (ConditionalCheckFailedException ex) {
				LockItem holder = LockItem.of(ex);
				String owner = holder.owner();
				if (owner == null) {
					// Released since it was seen
					seen = null;
					continue;
				}
				if (token.equals(owner) && holder.hasVersion(version)) {
					// Our own write, applied by an earlier attempt of the SDK's retries
					this.observed.wrote(key, token, version, sentAt, ttl);
					return AcquireReply.acquired(holder.fence());
				}
				if (token.equals(owner)) {
					if (stillOwn(key, token, holder)) {
						// An acquisition repeated by its owner
						return AcquireReply.acquired(holder.fence());
					}
					// Outlived, or written with this token by another instance at a time
					// this store cannot know: written anew, if it is still as read
					seen = holder;
					continue;
				}
				if (this.expiry == DynamoDbExpiry.CLIENT_CLOCK) {
					return AcquireReply.held(Duration.ofMillis(holder.expiresAt() - this.clock.millis()));
				}
				remaining = this.observed.remaining(key, owner, holder.observedVersion(), holder.lease());
				if (remaining > 0) {
					return AcquireReply.held(Duration.ofNanos(remaining));
				}
				// Unchanged for its whole lease: take it over if it still is
				seen = holder;
			}
		}
		// Lost every race: the next attempt decides
		return AcquireReply.held(Duration.ofNanos(Math.max(1, remaining)));
	}

	private boolean stillOwn(String key, String token, LockItem holder) {
		if (this.expiry == DynamoDbExpiry.CLIENT_CLOCK) {
			return holder.expiresAt() >= this.clock.millis();
		}
		Long remaining = this.observed.ownRemaining(key, token, holder.observedVersion());
		return remaining != null && remaining > 0;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Conditioned on the owner only (and, with {@link DynamoDbExpiry#CLIENT_CLOCK}, on
	 * the expiry time). A lock whose record this store has seen unchanged for its whole
	 * lease (from when it sent it, if it wrote it; the release answers the record as it
	 * was) is freed if it is still the caller's, and the answer is {@code false}: the
	 * lease was lost.
	 */
	@Override
	public boolean release(String key, String token) {
		try {
			LockItem released = LockItem.of(this.calls
				.call("release", key, () -> this.calls.client().updateItem(this.requests.release(key, token)))
				.attributes());
			return this.observed.remaining(key, token, released.observedVersion(), released.lease()) > 0;
		}
		catch (ConditionalCheckFailedException ex) {
			return false;
		}
		finally {
			this.observed.forget(key, token);
		}
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Refused, with nothing written, while the record is still as this store last wrote
	 * it and this store has outlived that write's lease by its own count, from when it
	 * sent it: another owner may take it over. A record that another instance wrote with
	 * the caller's token since (a renewal of a detached lease) is extended.
	 */
	@Override
	public boolean extend(String key, String token, Duration ttl) {
		long lease = LockRequests.millis(ttl);
		Long outlived = this.observed.outlivedVersion(key, token);
		long version = LockRequests.newVersion();
		long sentAt = this.observed.now();
		if (!this.calls.conditionally("extend", key, this.requests.extend(key, token, lease, version, outlived))) {
			if (outlived == null) {
				// Not the caller's any longer; an outlived write stays counted as it was
				this.observed.forget(key, token);
			}
			return false;
		}
		this.observed.wrote(key, token, version, sentAt, ttl);
		return true;
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Refused, with nothing written, as {@link #extend} is. The result's expiry is on
	 * this store's wall clock.
	 */
	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		Assert.notNull(result, "'result' must not be null");
		long millis = LockRequests.millis(ttl);
		Long outlived = this.observed.outlivedVersion(key, token);
		try {
			this.calls.call("store the result of", key, () -> this.calls.client()
				.updateItem(this.requests.putResult(key, token, result, millis, true, outlived)));
			return true;
		}
		catch (ConditionalCheckFailedException ex) {
			LockItem holder = LockItem.of(ex);
			if (!token.equals(holder.owner()) || (outlived != null && holder.hasVersion(outlived))) {
				return false;
			}
		}
		return this.calls.conditionally("store the result of", key,
				this.requests.putResult(key, token, result, millis, false, outlived));
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		Map<String, AttributeValue> item = this.calls
			.call("read the result of", key, () -> this.calls.client().getItem(this.requests.readResult(key)))
			.item();
		AttributeValue result = (item != null) ? item.get(RESULT) : null;
		if (result == null || result.b() == null
				|| LockItem.longValue(item, RESULT_EXPIRES_AT) <= this.clock.millis()) {
			return null;
		}
		return result.b().asByteArray();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A strongly consistent {@code GetItem} of the lock's holder, which changes nothing
	 * in the table; the holder is judged as {@link #tryAcquire} judges it (and, with
	 * {@link DynamoDbExpiry#OBSERVED}, remembered as seen), so a lock reported free here
	 * is one that {@code tryAcquire} would take. The call blocks for at most the client's
	 * API call timeout and retries.
	 */
	@Override
	public Duration timeToExpiry(String key) {
		LockItem holder = LockItem.of(this.calls
			.call("read the time to expiry of", key, () -> this.calls.client().getItem(this.requests.readHolder(key)))
			.item());
		String owner = holder.owner();
		if (owner == null) {
			return Duration.ZERO;
		}
		long remaining = (this.expiry == DynamoDbExpiry.CLIENT_CLOCK)
				? Duration.ofMillis(holder.expiresAt() - this.clock.millis()).toNanos()
				: this.observed.remaining(key, owner, holder.observedVersion(), holder.lease());
		return (remaining > 0) ? Duration.ofNanos(remaining) : Duration.ZERO;
	}

	/**
	 * Return the table's name.
	 * @return the table name
	 */
	public String getTableName() {
		return this.calls.tableName();
	}

	/**
	 * Return how this store decides that a lock's time-to-live has passed.
	 * @return the expiry mode
	 */
	public DynamoDbExpiry getExpiry() {
		return this.expiry;
	}

	/**
	 * Return the DynamoDB partition key value under which a lock key is stored.
	 * @param key the store key
	 * @return the key itself, or its hash
	 */
	public static String partitionKey(String key) {
		Assert.notNull(key, "'key' must not be null");
		// DynamoDB rejects an empty partition key
		return key.isEmpty() ? HashedKeys.hash(key) : HashedKeys.limit(key, MAX_KEY_BYTES);
	}

}
