package dev.lockstarter.store.dynamodb;

import java.net.URI;
import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;

/**
 * One {@link DynamoDbLockStore} for a test class, on a table of its own, through a client
 * of the server that this extension opens before the class's tests (once the server's
 * extension has started the server: register it after) and closes after them. The table
 * is created.
 */
final class SharedDynamoDbStore implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<URI> endpoint;

	private final String table;

	private @Nullable DynamoDbClient client;

	private @Nullable DynamoDbLockStore store;

	SharedDynamoDbStore(Supplier<URI> endpoint, String table) {
		this.endpoint = endpoint;
		this.table = table;
	}

	/**
	 * Return a builder of a client of a DynamoDB Local server, in its region with
	 * placeholder credentials.
	 * @param endpoint the server's endpoint
	 * @return the builder
	 */
	static DynamoDbClientBuilder clientOf(URI endpoint) {
		return DynamoDbClient.builder()
			.endpointOverride(endpoint)
			.region(Region.of(DynamoDbLocalServer.REGION))
			.credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")));
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		DynamoDbClient client = clientOf(this.endpoint.get())
			.overrideConfiguration((config) -> config.apiCallTimeout(Duration.ofSeconds(5)))
			.build();
		this.client = client;
		DynamoDbLockStore store = new DynamoDbLockStore(client, this.table);
		store.createTableIfNotExists();
		this.store = store;
	}

	@Override
	public void afterAll(ExtensionContext context) {
		DynamoDbClient client = this.client;
		if (client != null) {
			client.close();
		}
	}

	DynamoDbLockStore store() {
		DynamoDbLockStore store = this.store;
		if (store == null) {
			throw new IllegalStateException("No store outside of the test class's tests");
		}
		return store;
	}

}
