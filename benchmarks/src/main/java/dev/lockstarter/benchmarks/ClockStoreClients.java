package dev.lockstarter.benchmarks;

import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.store.dynamodb.DynamoDbLockStore;
import dev.lockstarter.store.memcached.MemcachedLockStore;

/**
 * The clients of the Memcached and DynamoDB stores, set up as the auto-configuration sets
 * up its own (its default timeouts and table name), for the benchmarks of the stores
 * whose expiry no longer follows the clients' wall clocks ({@code benchmarks/clock.sh}).
 */
final class ClockStoreClients {

	/** {@code lock.dynamodb.table}'s default. */
	static final String DYNAMODB_TABLE = "locks";

	/**
	 * {@code lock.memcached.connect-timeout}'s and {@code operation-timeout}'s default.
	 */
	private static final Duration MEMCACHED_TIMEOUT = Duration.ofSeconds(1);

	private ClockStoreClients() {
	}

	/**
	 * The Memcached store with a client of its own, which its {@code destroy()} shuts
	 * down.
	 * @param host the server's host
	 * @param port its port
	 * @return the store
	 */
	static MemcachedLockStore memcached(String host, int port) {
		return MemcachedLockStore.create(List.of(new InetSocketAddress(host, port)), MEMCACHED_TIMEOUT,
				MEMCACHED_TIMEOUT);
	}

	/**
	 * A client of DynamoDB Local with placeholder credentials, as the test kit builds
	 * them.
	 * @param endpoint the server's endpoint, {@code http://host:port}
	 * @return the client, which the caller closes
	 */
	static DynamoDbClient dynamoDbClient(String endpoint) {
		return DynamoDbClient.builder()
			.endpointOverride(URI.create(endpoint))
			.region(Region.US_EAST_1)
			.credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
			.build();
	}

	/**
	 * Create the lock table on a server, once, before any store uses it.
	 * @param endpoint the server's endpoint
	 */
	static void createDynamoDbTable(String endpoint) {
		try (DynamoDbClient client = dynamoDbClient(endpoint)) {
			new DynamoDbLockStore(client, DYNAMODB_TABLE).createTableIfNotExists();
		}
	}

	/**
	 * The DynamoDB store on a client of its own, its table already created.
	 * @param client the client, which the caller closes
	 * @return the store
	 */
	static DynamoDbLockStore dynamoDb(DynamoDbClient client) {
		return new DynamoDbLockStore(client, DYNAMODB_TABLE);
	}

}
