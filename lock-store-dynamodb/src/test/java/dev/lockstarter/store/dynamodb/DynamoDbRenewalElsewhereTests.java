package dev.lockstarter.store.dynamodb;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.ObservedExpiry;
import dev.lockstarter.test.contract.RenewalElsewhereContractTests;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServerExtension;

/**
 * {@link RenewalElsewhereContractTests} on DynamoDB Local, each store on a client of its
 * own, expiring locks by observed silence.
 */
class DynamoDbRenewalElsewhereTests extends RenewalElsewhereContractTests {

	private static final String TABLE = "renewal-elsewhere-locks";

	@RegisterExtension
	static final DynamoDbLocalServerExtension dynamoDb = new DynamoDbLocalServerExtension();

	private static DynamoDbClient tableClient;

	private final List<DynamoDbClient> clients = new ArrayList<>();

	@BeforeAll
	static void createTable() {
		tableClient = dynamoDb.server().createClient();
		new DynamoDbLockStore(tableClient, TABLE).createTableIfNotExists();
	}

	@AfterAll
	static void closeTableClient() {
		tableClient.close();
	}

	@Override
	protected LockStore createStore(ObservedExpiry observed) {
		DynamoDbClient client = dynamoDb.server().createClient();
		this.clients.add(client);
		return new DynamoDbLockStore(client, TABLE, Clock.systemUTC(), DynamoDbExpiry.OBSERVED, observed);
	}

	@AfterEach
	void closeClients() {
		this.clients.forEach(DynamoDbClient::close);
	}

}
