package dev.lockstarter.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ResourceInUseException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.waiters.DynamoDbWaiter;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.HashedKeys;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.util.Assert;

/**
 * {@link LockStore} on Amazon DynamoDB, through the AWS SDK for Java 2.x.
 * <p>
 * A lock is an item of a table whose partition key {@value #PARTITION_KEY} (a string) is
 * the lock key. Its attributes: {@value #OWNER} (the owner token), {@value #EXPIRES_AT}
 * (the expiry time, epoch milliseconds), {@value #FENCE} (the fencing counter) and
 * {@value #TTL} (epoch seconds, for DynamoDB's Time to Live). Each operation is one
 * conditional {@code UpdateItem} request, except the reads:
 * <ul>
 * <li>acquire: sets the owner and expiry time and increments the fencing counter, on the
 * condition {@code attribute_not_exists(owner) OR expiresAt < :now}. The new fencing
 * token comes back in the same answer ({@code ReturnValues=UPDATED_NEW}); on a conflict
 * the holder's item comes back with the {@code ConditionalCheckFailedException}
 * ({@code ReturnValuesOnConditionCheckFailure=ALL_OLD}), which gives its remaining
 * time-to-live. Acquisition and fencing token are therefore one atomic write.</li>
 * <li>release: removes the owner and expiry time on the condition
 * {@code owner = :token AND expiresAt >= :now}. The item itself stays, with its fencing
 * counter, so that tokens keep increasing.</li>
 * <li>extend: sets a new expiry time on the same condition.</li>
 * <li>put result: sets {@value #RESULT} (binary) and {@value #RESULT_EXPIRES_AT} (epoch
 * milliseconds) on the same condition, so only the holder stores one; the release leaves
 * them, and {@link #getResult} reads them with a strongly consistent {@code GetItem}. A
 * result is limited by DynamoDB's item size (400 KB with the rest of the item).</li>
 * <li>time to expiry: a strongly consistent {@code GetItem} of the owner and expiry time,
 * which changes nothing; the lock is free when the item or its owner is absent or its
 * expiry time has passed.</li>
 * </ul>
 * <p>
 * <b>Expiry</b> is decided by the clients' wall clocks with millisecond precision: the
 * client that acquires writes {@code now + ttl}, and another client considers the lock
 * expired when its own clock passes that time. A client whose clock runs ahead of the
 * others by some amount can take their locks over that much early. Keep clocks
 * synchronized (NTP; AWS hosts use the Amazon Time Sync Service), choose time-to-lives
 * well above the possible skew, and use the fencing tokens where a late writer must be
 * rejected.
 * <p>
 * <b>Fencing tokens</b> strictly increase per key: the counter starts at the acquiring
 * client's clock in microseconds and grows by one with each acquisition. The
 * {@value #TTL} attribute is set to {@value #RETENTION_HOURS} hours after the lock's
 * expiry, so that with Time to Live enabled on it the items of keys no longer used are
 * deleted; a counter deleted that way starts again from the clock, still above every
 * token it issued unless a clock is more than a day behind.
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

	/** The expiry time attribute, in epoch milliseconds. */
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

	private static final Duration TABLE_OPERATION_TIMEOUT = Duration.ofSeconds(30);

	private static final Duration TABLE_POLL_DELAY = Duration.ofMillis(500);

	private static final Duration TABLE_WAIT_TIMEOUT = Duration.ofMinutes(2);

	private static final Map<String, String> NAMES = Map.of("#owner", OWNER, "#expiresAt", EXPIRES_AT, "#fence", FENCE,
			"#ttl", TTL);

	private static final Map<String, String> HOLDER_NAMES = Map.of("#owner", OWNER, "#expiresAt", EXPIRES_AT);

	private static final Map<String, String> EXTEND_NAMES = Map.of("#owner", OWNER, "#expiresAt", EXPIRES_AT, "#ttl",
			TTL);

	private static final AttributeValue ONE = AttributeValue.fromN("1");

	private final DynamoDbClient client;

	private final String tableName;

	private final Clock clock;

	/**
	 * Create a store on the given client and table. The caller keeps ownership of the
	 * client and closes it.
	 * @param client the DynamoDB client
	 * @param tableName the table, with a string partition key named
	 * {@value #PARTITION_KEY}
	 * @see #createTableIfNotExists()
	 */
	public DynamoDbLockStore(DynamoDbClient client, String tableName) {
		this(client, tableName, Clock.systemUTC());
	}

	/**
	 * Create a store on the given client and table, deciding expiry with the given clock.
	 * @param client the DynamoDB client
	 * @param tableName the table, with a string partition key named
	 * {@value #PARTITION_KEY}
	 * @param clock the wall clock that decides expiry, shared in effect by every client
	 * of the table
	 */
	public DynamoDbLockStore(DynamoDbClient client, String tableName, Clock clock) {
		Assert.notNull(client, "'client' must not be null");
		Assert.hasText(tableName, "'tableName' must not be empty");
		Assert.notNull(clock, "'clock' must not be null");
		this.client = client;
		this.tableName = tableName;
		this.clock = clock;
	}

	/**
	 * Create the table if it does not exist, with on-demand capacity, and wait until it
	 * is active (up to two minutes); then enable Time to Live on {@value #TTL}. Meant for
	 * development and tests: production tables are better created with the rest of the
	 * infrastructure.
	 * @throws LockStoreException if the table cannot be created
	 */
	public void createTableIfNotExists() {
		// Table operations may take longer than the client's timeout, tuned for lock
		// operations
		AwsRequestOverrideConfiguration patient = AwsRequestOverrideConfiguration.builder()
			.apiCallTimeout(TABLE_OPERATION_TIMEOUT)
			.build();
		call("create the table", "", () -> {
			try {
				this.client.createTable((table) -> table.tableName(this.tableName)
					.attributeDefinitions(AttributeDefinition.builder()
						.attributeName(PARTITION_KEY)
						.attributeType(ScalarAttributeType.S)
						.build())
					.keySchema(KeySchemaElement.builder().attributeName(PARTITION_KEY).keyType(KeyType.HASH).build())
					.billingMode(BillingMode.PAY_PER_REQUEST)
					.overrideConfiguration(patient));
			}
			catch (ResourceInUseException ex) {
				// Exists already (or is being created)
			}
			try (DynamoDbWaiter waiter = DynamoDbWaiter.builder()
				.client(this.client)
				.overrideConfiguration(
						(config) -> config.backoffStrategyV2(BackoffStrategy.fixedDelay(TABLE_POLL_DELAY))
							.waitTimeout(TABLE_WAIT_TIMEOUT))
				.build()) {
				waiter.waitUntilTableExists((table) -> table.tableName(this.tableName).overrideConfiguration(patient));
			}
			TimeToLiveDescription timeToLive = this.client
				.describeTimeToLive((ttl) -> ttl.tableName(this.tableName).overrideConfiguration(patient))
				.timeToLiveDescription();
			if (timeToLive == null || !TTL.equals(timeToLive.attributeName())) {
				this.client.updateTimeToLive((ttl) -> ttl.tableName(this.tableName)
					.timeToLiveSpecification((spec) -> spec.attributeName(TTL).enabled(true))
					.overrideConfiguration(patient));
			}
			return null;
		});
	}

	@Override
	public AcquireReply tryAcquire(String key, String token, Duration ttl) {
		long now = this.clock.millis();
		long expiresAt = now + millis(ttl);
		UpdateItemRequest request = UpdateItemRequest.builder()
			.tableName(this.tableName)
			.key(key(key))
			.updateExpression("SET #owner = :token, #expiresAt = :expiresAt, #ttl = :ttl, "
					+ "#fence = if_not_exists(#fence, :fenceStart) + :one")
			.conditionExpression("attribute_not_exists(#owner) OR #expiresAt < :now")
			.expressionAttributeNames(NAMES)
			.expressionAttributeValues(Map.of(":token", AttributeValue.fromS(token), ":expiresAt", number(expiresAt),
					":ttl", number(cleanupTime(expiresAt)), ":fenceStart", number(now * 1000), ":one", ONE, ":now",
					number(now)))
			.returnValues(ReturnValue.UPDATED_NEW)
			.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
			.build();
		try {
			UpdateItemResponse response = call("acquire", key, () -> this.client.updateItem(request));
			return AcquireReply.acquired(longValue(response.attributes(), FENCE));
		}
		catch (ConditionalCheckFailedException ex) {
			Map<String, AttributeValue> holder = ex.hasItem() ? ex.item() : Map.of();
			long holderExpiresAt = longValue(holder, EXPIRES_AT);
			if (token.equals(stringValue(holder, OWNER)) && holderExpiresAt >= now) {
				// Our own acquisition, applied by an earlier attempt of the SDK's retries
				return AcquireReply.acquired(longValue(holder, FENCE));
			}
			return AcquireReply.held(Duration.ofMillis(holderExpiresAt - this.clock.millis()));
		}
	}

	@Override
	public boolean release(String key, String token) {
		UpdateItemRequest request = UpdateItemRequest.builder()
			.tableName(this.tableName)
			.key(key(key))
			.updateExpression("REMOVE #owner, #expiresAt")
			.conditionExpression("#owner = :token AND #expiresAt >= :now")
			.expressionAttributeNames(HOLDER_NAMES)
			.expressionAttributeValues(
					Map.of(":token", AttributeValue.fromS(token), ":now", number(this.clock.millis())))
			.build();
		return conditionally("release", key, request);
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		long now = this.clock.millis();
		long expiresAt = now + millis(ttl);
		UpdateItemRequest request = UpdateItemRequest.builder()
			.tableName(this.tableName)
			.key(key(key))
			.updateExpression("SET #expiresAt = :expiresAt, #ttl = :ttl")
			.conditionExpression("#owner = :token AND #expiresAt >= :now")
			.expressionAttributeNames(EXTEND_NAMES)
			.expressionAttributeValues(Map.of(":token", AttributeValue.fromS(token), ":expiresAt", number(expiresAt),
					":ttl", number(cleanupTime(expiresAt)), ":now", number(now)))
			.build();
		return conditionally("extend", key, request);
	}

	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		Assert.notNull(result, "'result' must not be null");
		long now = this.clock.millis();
		long expiresAt = now + millis(ttl);
		Map<String, String> names = new HashMap<>(HOLDER_NAMES);
		names.put("#result", RESULT);
		names.put("#resultExpiresAt", RESULT_EXPIRES_AT);
		names.put("#ttl", TTL);
		Map<String, AttributeValue> values = Map.of(":token", AttributeValue.fromS(token), ":now", number(now),
				":result", AttributeValue.fromB(SdkBytes.fromByteArray(result)), ":resultExpiresAt", number(expiresAt),
				":ttl", number(cleanupTime(expiresAt)));
		// The item's Time to Live moves later only: a result that expires sooner must not
		// let
		// DynamoDB delete the item, with its fencing counter, before the lock's own
		// cleanup time.
		UpdateItemRequest request = UpdateItemRequest.builder()
			.tableName(this.tableName)
			.key(key(key))
			.updateExpression("SET #result = :result, #resultExpiresAt = :resultExpiresAt, #ttl = :ttl")
			.conditionExpression("#owner = :token AND #expiresAt >= :now AND #ttl <= :ttl")
			.expressionAttributeNames(names)
			.expressionAttributeValues(values)
			.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
			.build();
		try {
			call("store the result of", key, () -> this.client.updateItem(request));
			return true;
		}
		catch (ConditionalCheckFailedException ex) {
			Map<String, AttributeValue> holder = ex.hasItem() ? ex.item() : Map.of();
			if (!token.equals(stringValue(holder, OWNER)) || longValue(holder, EXPIRES_AT) < now) {
				return false;
			}
		}
		names.remove("#ttl");
		UpdateItemRequest keepingTtl = request.toBuilder()
			.updateExpression("SET #result = :result, #resultExpiresAt = :resultExpiresAt")
			.conditionExpression("#owner = :token AND #expiresAt >= :now")
			.expressionAttributeNames(names)
			.expressionAttributeValues(Map.of(":token", values.get(":token"), ":now", values.get(":now"), ":result",
					values.get(":result"), ":resultExpiresAt", values.get(":resultExpiresAt")))
			.build();
		return conditionally("store the result of", key, keepingTtl);
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		Map<String, AttributeValue> item = call("read the result of", key,
				() -> this.client.getItem((get) -> get.tableName(this.tableName)
					.key(key(key))
					.consistentRead(true)
					.projectionExpression("#result, #resultExpiresAt")
					.expressionAttributeNames(Map.of("#result", RESULT, "#resultExpiresAt", RESULT_EXPIRES_AT))))
			.item();
		AttributeValue result = (item != null) ? item.get(RESULT) : null;
		if (result == null || result.b() == null || longValue(item, RESULT_EXPIRES_AT) <= this.clock.millis()) {
			return null;
		}
		return result.b().asByteArray();
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A strongly consistent {@code GetItem} of the lock's owner and expiry time, which
	 * changes nothing; the expiry time is compared with this store's clock as
	 * {@link #tryAcquire} compares it, so a lock reported free here is one that
	 * {@code tryAcquire} would take. The call blocks for at most the client's API call
	 * timeout and retries.
	 */
	@Override
	public Duration timeToExpiry(String key) {
		Map<String, AttributeValue> item = call("read the time to expiry of", key,
				() -> this.client.getItem((get) -> get.tableName(this.tableName)
					.key(key(key))
					.consistentRead(true)
					.projectionExpression("#owner, #expiresAt")
					.expressionAttributeNames(HOLDER_NAMES)))
			.item();
		if (item == null || stringValue(item, OWNER) == null) {
			return Duration.ZERO;
		}
		long remaining = longValue(item, EXPIRES_AT) - this.clock.millis();
		return (remaining > 0) ? Duration.ofMillis(remaining) : Duration.ZERO;
	}

	/**
	 * Return the table's name.
	 * @return the table name
	 */
	public String getTableName() {
		return this.tableName;
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

	private boolean conditionally(String operation, String key, UpdateItemRequest request) {
		try {
			call(operation, key, () -> this.client.updateItem(request));
			return true;
		}
		catch (ConditionalCheckFailedException ex) {
			return false;
		}
	}

	private <T> T call(String operation, String key, Supplier<T> call) {
		try {
			return call.get();
		}
		catch (ConditionalCheckFailedException ex) {
			throw ex;
		}
		catch (ResourceNotFoundException ex) {
			throw new LockStoreException(key, "DynamoDB lock store failed to " + operation + " lock '" + key
					+ "': table '" + this.tableName + "' does not exist", ex);
		}
		catch (SdkException ex) {
			throw new LockStoreException(key, "DynamoDB lock store failed to " + operation
					+ (key.isEmpty() ? "" : " lock '" + key + "'") + " (table '" + this.tableName + "')", ex);
		}
	}

	private static Map<String, AttributeValue> key(String key) {
		return Map.of(PARTITION_KEY, AttributeValue.fromS(partitionKey(key)));
	}

	private static AttributeValue number(long value) {
		return AttributeValue.fromN(Long.toString(value));
	}

	private static long cleanupTime(long expiresAt) {
		return (expiresAt + 999) / 1000 + Duration.ofHours(RETENTION_HOURS).toSeconds();
	}

	private static long millis(Duration ttl) {
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.isTrue(!ttl.isZero() && !ttl.isNegative(), () -> "'ttl' must be positive, was " + ttl);
		return Math.max(1, ttl.toMillis());
	}

	private static long longValue(Map<String, AttributeValue> item, String name) {
		AttributeValue value = item.get(name);
		return (value != null && value.n() != null) ? Long.parseLong(value.n()) : 0;
	}

	private static @Nullable String stringValue(Map<String, AttributeValue> item, String name) {
		AttributeValue value = item.get(name);
		return (value != null) ? value.s() : null;
	}

}
