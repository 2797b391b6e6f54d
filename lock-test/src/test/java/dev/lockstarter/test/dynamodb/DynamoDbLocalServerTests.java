package dev.lockstarter.test.dynamodb;

import java.net.ConnectException;
import java.net.Socket;
import java.util.List;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link DynamoDbLocalServer} and {@link DynamoDbLocalServerExtension}.
 */
class DynamoDbLocalServerTests {

	@Test
	void startedServerAnswersItsClients() {
		try (DynamoDbLocalServer server = DynamoDbLocalServer.start(); DynamoDbClient client = server.createClient()) {
			assertThat(server.endpoint()).hasToString("http://127.0.0.1:" + server.port());
			assertThat(server.isPersistent()).isFalse();
			createTable(client, "table");
			assertThat(client.listTables().tableNames()).containsExactly("table");
		}
	}

	@Test
	void serverInMemoryStartsEmptyAfterARestart() {
		try (DynamoDbLocalServer server = DynamoDbLocalServer.start(); DynamoDbClient client = server.createClient()) {
			createTable(client, "table");
			server.restart();
			assertThat(client.listTables().tableNames()).isEmpty();
		}
	}

	@Test
	void persistentServerKeepsItsTablesAcrossARestart() {
		try (DynamoDbLocalServer server = DynamoDbLocalServer.startPersistent();
				DynamoDbClient client = server.createClient()) {
			assertThat(server.isPersistent()).isTrue();
			int port = server.port();
			createTable(client, "table");
			server.stop();
			assertThatExceptionOfType(ConnectException.class)
				.isThrownBy(() -> new Socket(server.host(), server.port()).close());
			server.restart();
			assertThat(server.port()).isEqualTo(port);
			assertThat(client.listTables().tableNames()).containsExactly("table");
		}
	}

	@Test
	void closedServerCannotBeRestarted() {
		DynamoDbLocalServer server = DynamoDbLocalServer.start();
		server.close();
		server.close();
		assertThatIllegalStateException().isThrownBy(server::restart).withMessageContaining("closed");
	}

	@Test
	void startFailsClearlyWhenEveryPortIsTaken() throws Exception {
		try (DynamoDbLocalServer other = DynamoDbLocalServer.start()) {
			assertThatIllegalStateException().isThrownBy(() -> DynamoDbLocalServer.start(false, other::port))
				.withMessageContaining("ports were taken by other processes");
		}
	}

	private static void createTable(DynamoDbClient client, String name) {
		client.createTable((table) -> table.tableName(name)
			.attributeDefinitions(List
				.of(AttributeDefinition.builder().attributeName("pk").attributeType(ScalarAttributeType.S).build()))
			.keySchema(KeySchemaElement.builder().attributeName("pk").keyType(KeyType.HASH).build())
			.billingMode(BillingMode.PAY_PER_REQUEST));
	}

}
