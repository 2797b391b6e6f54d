package dev.lockstarter.store.dynamodb;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ReturnValuesOnConditionCheckFailure;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import org.springframework.util.Assert;

import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.EXPIRES_AT;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.FENCE;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.LEASE_MILLIS;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.OWNER;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.PARTITION_KEY;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.RECORD_VERSION;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.RESULT;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.RESULT_EXPIRES_AT;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.RETENTION_HOURS;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.TTL;

/**
 * The requests of a {@link DynamoDbLockStore}: each conditional write of a lock's item
 * and each read, with the expressions, attribute names and values that the store's
 * {@link DynamoDbExpiry expiry mode} gives it.
 */
final class LockRequests {

	/** A write of the holder: owner, version, lease, and the next fencing token. */
	private static final String ACQUIRE = "SET #owner = :token, #version = :version, #lease = :lease, #ttl = :ttl, "
			+ "#fence = if_not_exists(#fence, :fenceStart) + :one";

	/** The condition of an acquisition by observation. */
	private static final String FREE = "attribute_not_exists(#owner)";

	/** The condition of a clock-dependent acquisition: seed 002's conditional put. */
	private static final String FREE_BY_CLOCK = "attribute_not_exists(#owner) OR #expiresAt < :now";

	/** A renewal: a new version and lease. */
	private static final String EXTEND = "SET #version = :version, #lease = :lease, #ttl = :ttl";

	/** A release: the item stays, with its fencing counter and Time to Live. */
	private static final String RELEASE = "REMOVE #owner, #version, #lease, #expiresAt";

	/** The projection of a read of the holder. */
	private static final String HOLDER = "#owner, #version, #lease, #expiresAt, #fence";

	private static final String PUT_RESULT = "SET #result = :result, #resultExpiresAt = :resultExpiresAt";

	private static final Map<String, String> NAMES = Map.of("#owner", OWNER, "#version", RECORD_VERSION, "#lease",
			LEASE_MILLIS, "#expiresAt", EXPIRES_AT, "#fence", FENCE, "#ttl", TTL, "#result", RESULT, "#resultExpiresAt",
			RESULT_EXPIRES_AT);

	private static final AttributeValue ONE = AttributeValue.fromN("1");

	private final String tableName;

	private final Clock clock;

	private final boolean byClock;

	LockRequests(String tableName, Clock clock, DynamoDbExpiry expiry) {
		this.tableName = tableName;
		this.clock = clock;
		this.byClock = expiry == DynamoDbExpiry.CLIENT_CLOCK;
	}

	/**
	 * An acquisition that draws the fencing token: of a free lock, or with
	 * {@link DynamoDbExpiry#CLIENT_CLOCK} of one whose expiry time passed; or the
	 * takeover of the holder {@code seen}, if its item is still unchanged.
	 */
	UpdateItemRequest acquire(String key, String token, long lease, long version, @Nullable LockItem seen) {
		long now = this.clock.millis();
		Map<String, AttributeValue> values = holder(token, now, null);
		values.putAll(Map.of(":version", number(version), ":lease", number(lease), ":ttl",
				number(cleanupTime(now + lease)), ":fenceStart", number(now * 1000), ":one", ONE));
		if (this.byClock) {
			values.put(":expiresAt", number(now + lease));
			return acquisition(update(key, ACQUIRE + ", #expiresAt = :expiresAt", FREE_BY_CLOCK, values));
		}
		if (seen == null) {
			return acquisition(update(key, ACQUIRE, FREE, values));
		}
		values.put(":holder", AttributeValue.fromS(String.valueOf(seen.owner())));
		values.put(":seen", number(seen.observedVersion()));
		String unchanged = "#owner = :holder AND " + ((seen.version() != null) ? "#version = :seen"
				: "attribute_not_exists(#version) AND (#expiresAt = :seen OR attribute_not_exists(#expiresAt))");
		// An item that a clock-dependent writer wrote is left without its expiry time
		return acquisition(update(key, ACQUIRE + " REMOVE #expiresAt", unchanged, values));
	}

	/**
	 * Finish an acquisition: the new fencing token comes back in its answer, and the
	 * holder's item with a failed condition.
	 */
	private static UpdateItemRequest acquisition(UpdateItemRequest.Builder update) {
		return update.returnValues(ReturnValue.UPDATED_NEW)
			.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
			.build();
	}

	/** A release by the holder, answering the item as it was. */
	UpdateItemRequest release(String key, String token) {
		return update(key, RELEASE, held(null), holder(token, this.clock.millis(), null))
			.returnValues(ReturnValue.ALL_OLD)
			.build();
	}

	/**
	 * An extension by the holder, with a new version; not of the record at
	 * {@code outlived}, a write of the holder's that outlived its lease.
	 */
	UpdateItemRequest extend(String key, String token, long lease, long version, @Nullable Long outlived) {
		long now = this.clock.millis();
		Map<String, AttributeValue> values = holder(token, now, outlived);
		values.putAll(
				Map.of(":version", number(version), ":lease", number(lease), ":ttl", number(cleanupTime(now + lease))));
		if (this.byClock) {
			values.put(":expiresAt", number(now + lease));
			return update(key, EXTEND + ", #expiresAt = :expiresAt", held(outlived), values).build();
		}
		return update(key, EXTEND, held(outlived), values).build();
	}

	/**
	 * A result stored by the holder. The item's Time to Live moves later only
	 * ({@code movingTtl}, on that condition), or stays: a result that expires sooner must
	 * not let DynamoDB delete the item, with its fencing counter, before the lock's own
	 * cleanup time.
	 */
	UpdateItemRequest putResult(String key, String token, byte[] result, long ttl, boolean movingTtl,
			@Nullable Long outlived) {
		long now = this.clock.millis();
		Map<String, AttributeValue> values = holder(token, now, outlived);
		values.put(":result", AttributeValue.fromB(SdkBytes.fromByteArray(result)));
		values.put(":resultExpiresAt", number(now + ttl));
		if (!movingTtl) {
			return update(key, PUT_RESULT, held(outlived), values).build();
		}
		values.put(":ttl", number(cleanupTime(now + ttl)));
		return update(key, PUT_RESULT + ", #ttl = :ttl", held(outlived) + " AND #ttl <= :ttl", values)
			.returnValuesOnConditionCheckFailure(ReturnValuesOnConditionCheckFailure.ALL_OLD)
			.build();
	}

	/** A strongly consistent read of a lock's holder. */
	GetItemRequest readHolder(String key) {
		return read(key, HOLDER);
	}

	/** A strongly consistent read of the result kept for a lock. */
	GetItemRequest readResult(String key) {
		return read(key, "#result, #resultExpiresAt");
	}

	private GetItemRequest read(String key, String projection) {
		return GetItemRequest.builder()
			.tableName(this.tableName)
			.key(key(key))
			.consistentRead(true)
			.projectionExpression(projection)
			.expressionAttributeNames(names(projection))
			.build();
	}

	private UpdateItemRequest.Builder update(String key, String update, String condition,
			Map<String, AttributeValue> values) {
		return UpdateItemRequest.builder()
			.tableName(this.tableName)
			.key(key(key))
			.updateExpression(update)
			.conditionExpression(condition)
			.expressionAttributeNames(names(update + " " + condition))
			.expressionAttributeValues(values);
	}

	/**
	 * The condition that the caller holds the lock, and that the record is not at
	 * {@code outlived}: a write of this store's that outlived its lease by its own count,
	 * which anyone may take over. A later write with the caller's token (a renewal on
	 * another instance) has another version.
	 */
	private String held(@Nullable Long outlived) {
		String held = this.byClock ? "#owner = :token AND #expiresAt >= :now" : "#owner = :token";
		return (outlived != null) ? held + " AND #version <> :outlived" : held;
	}

	private Map<String, AttributeValue> holder(String token, long now, @Nullable Long outlived) {
		Map<String, AttributeValue> values = new HashMap<>();
		values.put(":token", AttributeValue.fromS(token));
		if (this.byClock) {
			values.put(":now", number(now));
		}
		if (outlived != null) {
			values.put(":outlived", number(outlived));
		}
		return values;
	}

	/** Return the attribute names that an expression uses: DynamoDB refuses others. */
	private static Map<String, String> names(String expression) {
		Map<String, String> names = new HashMap<>();
		NAMES.forEach((name, attribute) -> {
			if (Pattern.compile(name + "\\b").matcher(expression).find()) {
				names.put(name, attribute);
			}
		});
		return names;
	}

	/** Draw a new record version. */
	static long newVersion() {
		return ThreadLocalRandom.current().nextLong();
	}

	static Map<String, AttributeValue> key(String key) {
		return Map.of(PARTITION_KEY, AttributeValue.fromS(DynamoDbLockStore.partitionKey(key)));
	}

	private static AttributeValue number(long value) {
		return AttributeValue.fromN(Long.toString(value));
	}

	/** Return the Time to Live, epoch seconds, a retention period after an expiry. */
	private static long cleanupTime(long expiresAt) {
		return (expiresAt + 999) / 1000 + Duration.ofHours(RETENTION_HOURS).toSeconds();
	}

	static long millis(Duration ttl) {
		Assert.notNull(ttl, "'ttl' must not be null");
		Assert.isTrue(!ttl.isZero() && !ttl.isNegative(), () -> "'ttl' must be positive, was " + ttl);
		return Math.max(1, ttl.toMillis());
	}

}
