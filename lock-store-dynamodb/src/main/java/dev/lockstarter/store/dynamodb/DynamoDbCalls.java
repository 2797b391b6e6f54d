package dev.lockstarter.store.dynamodb;

import java.util.concurrent.CancellationException;
import java.util.function.Supplier;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import dev.lockstarter.store.LockStoreException;

/**
 * The DynamoDB store's calls through its client, on its table: a failed call raises a
 * {@link LockStoreException} that names the operation, the lock and the table, except a
 * failed condition, which its caller reads. A wait for a connection cancelled by an
 * interrupt fails as an interrupted call, whose acquisition is released at once.
 */
final class DynamoDbCalls {

	private final DynamoDbClient client;

	private final String tableName;

	DynamoDbCalls(DynamoDbClient client, String tableName) {
		this.client = client;
		this.tableName = tableName;
	}

	DynamoDbClient client() {
		return this.client;
	}

	String tableName() {
		return this.tableName;
	}

	/**
	 * Send an update that is conditioned on the item.
	 * @param operation what the store does, for the exception's message
	 * @param key the lock's key
	 * @param request the update
	 * @return whether the condition held and the item was written
	 */
	boolean conditionally(String operation, String key, UpdateItemRequest request) {
		try {
			call(operation, key, () -> this.client.updateItem(request));
			return true;
		}
		catch (ConditionalCheckFailedException ex) {
			return false;
		}
	}

	<T> T call(String operation, String key, Supplier<T> call) {
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
			throw failed(operation, key, ex);
		}
		catch (CancellationException ex) {
			// The SDK cancels its wait for a pooled connection when the calling thread is
			// interrupted; the Apache client's pool then lets this through unwrapped
			InterruptedException interruption = new InterruptedException("Interrupted while waiting for a connection");
			interruption.initCause(ex);
			throw failed(operation, key, interruption);
		}
	}

	private LockStoreException failed(String operation, String key, Exception cause) {
		return new LockStoreException(key, "DynamoDB lock store failed to " + operation
				+ (key.isEmpty() ? "" : " lock '" + key + "'") + " (table '" + this.tableName + "')", cause);
	}

}
