package dev.lockstarter.store.dynamodb;

import java.time.Duration;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.EXPIRES_AT;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.FENCE;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.LEASE_MILLIS;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.OWNER;
import static dev.lockstarter.store.dynamodb.DynamoDbLockStore.RECORD_VERSION;

/**
 * A lock's item as a {@link DynamoDbLockStore} read it, or as a failed condition returned
 * it.
 *
 * @param owner the owner token, {@code null} when the lock is free
 * @param version the record version, which every write of the lock draws anew;
 * {@code null} for an item without one
 * @param leaseMillis the lease duration written with the owner, in milliseconds; zero for
 * an item without one
 * @param expiresAt the expiry time on the writer's wall clock, in epoch milliseconds,
 * written only by {@link DynamoDbExpiry#CLIENT_CLOCK}; zero for an item without one
 * @param fence the fencing counter
 */
record LockItem(@Nullable String owner, @Nullable Long version, long leaseMillis, long expiresAt, long fence) {

	/**
	 * The lease of an item written without one, by a store before lease durations and
	 * record versions were written.
	 */
	static final Duration UNKNOWN_LEASE = Duration.ofMinutes(1);

	/**
	 * Read an item.
	 * @param item the item, or its projection; {@code null} for none
	 * @return the item's lock
	 */
	static LockItem of(@Nullable Map<String, AttributeValue> item) {
		Map<String, AttributeValue> attributes = (item != null) ? item : Map.of();
		AttributeValue owner = attributes.get(OWNER);
		AttributeValue version = attributes.get(RECORD_VERSION);
		return new LockItem((owner != null) ? owner.s() : null,
				(version != null && version.n() != null) ? Long.valueOf(version.n()) : null,
				longValue(attributes, LEASE_MILLIS), longValue(attributes, EXPIRES_AT), longValue(attributes, FENCE));
	}

	/**
	 * Read the item that a failed condition returned.
	 * @param ex the failure, with the item as it was
	 * @return the item's lock
	 */
	static LockItem of(ConditionalCheckFailedException ex) {
		return of(ex.hasItem() ? ex.item() : null);
	}

	/**
	 * Return the lease written with the owner, or {@link #UNKNOWN_LEASE} for an item
	 * without one.
	 */
	Duration lease() {
		return (this.leaseMillis > 0) ? Duration.ofMillis(this.leaseMillis) : UNKNOWN_LEASE;
	}

	/**
	 * Return the version as observed expiry counts it: for an item without one, its
	 * expiry time, which each of its writes changed.
	 */
	long observedVersion() {
		return (this.version != null) ? this.version : this.expiresAt;
	}

	/** Return whether this item's version is {@code version}. */
	boolean hasVersion(long version) {
		return this.version != null && this.version == version;
	}

	static long longValue(@Nullable Map<String, AttributeValue> item, String name) {
		AttributeValue value = (item != null) ? item.get(name) : null;
		return (value != null && value.n() != null) ? Long.parseLong(value.n()) : 0;
	}

}
