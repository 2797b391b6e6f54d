package dev.lockstarter.store.dynamodb;

import java.time.Duration;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.test.adapter.AdapterContractTests;
import dev.lockstarter.test.adapter.LostUpdateChecker;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * {@link AdapterContractTests} on the {@link DynamoDbLockStore}, against DynamoDB Local:
 * the Spring Integration, ShedLock and {@code Lock} adapters.
 */
class DynamoDbAdapterContractTests extends AdapterContractTests {

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	private static DynamoDbClient client;

	private static DynamoDbLockStore sharedStore;

	@BeforeAll
	static void createSharedStore() {
		client = DynamoDbClient.builder()
			.endpointOverride(dynamoDb.endpoint())
			.region(Region.of(DynamoDbLocalServer.REGION))
			.credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
			.overrideConfiguration((config) -> config.apiCallTimeout(Duration.ofSeconds(5)))
			.build();
		sharedStore = new DynamoDbLockStore(client, "adapter-locks");
		sharedStore.createTableIfNotExists();
	}

	@AfterAll
	static void closeClient() {
		if (client != null) {
			client.close();
		}
	}

	@Override
	protected LockStore createStore() {
		return sharedStore;
	}

	@Override
	protected LostUpdateChecker lostUpdateChecker() {
		// DynamoDB Local, in this JVM, answers a few hundred requests a second on two
		// cores, and every attempt that finds a key held costs one
		return new LostUpdateChecker().threads(8).sectionsPerThread(10);
	}

	@Override
	protected RenewableLockRegistry<DistributedLock> createLockRegistry(LockOperations operations,
			LockOptions options) {
		return new LockOperationsLockRegistry(operations, options);
	}

	@Override
	protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
		return new LockOperationsLockProvider(operations);
	}

}
