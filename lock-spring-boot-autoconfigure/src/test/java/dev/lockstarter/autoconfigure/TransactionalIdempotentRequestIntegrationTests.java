package dev.lockstarter.autoconfigure;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.idempotency.IdempotentRequest;
import dev.lockstarter.idempotency.IdempotentRequestInterceptor;
import dev.lockstarter.idempotency.IdempotentRequestTransactions;
import dev.lockstarter.store.jdbc.JdbcLockStore;
import dev.lockstarter.test.postgres.PostgresServerExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * End-to-end tests of {@code lock.idempotency.transactional=true}: the response of an
 * {@link IdempotentRequest} is kept in the handler's own transaction, on a real
 * PostgreSQL that holds both the locks and the handler's writes; and the startup checks
 * of the mode.
 */
class TransactionalIdempotentRequestIntegrationTests {

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	private static final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private static ConfigurableApplicationContext context;

	private static int port;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(5))
		.build();

	@BeforeAll
	static void startInstance() {
		context = start(WebApp.class, "lock.idempotency.transactional=true");
		port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	@AfterAll
	static void closeContexts() {
		contexts.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void modeIsWiredToTheJdbcStoreAndTheDataSourcesTransactionManager() {
		assertThat(context.getBean(IdempotentRequestInterceptor.class).isTransactional()).isTrue();
		assertThat(context.getBean(JdbcLockStore.class).isJoinTransactionForResults()).isTrue();
		assertThat(context.getBeansOfType(IdempotentRequestTransactions.class)).hasSize(1);
	}

	@Test
	void keptResponseAndTheHandlersWriteAreCommittedTogetherAndARetryReplays() throws Exception {
		String key = newKey();
		HttpResponse<String> original = post("/charges/" + key, key);
		assertThat(original.statusCode()).isEqualTo(201);
		assertThat(charges(key)).isOne();
		HttpResponse<String> retry = post("/charges/" + key, key);
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(retry.body()).isEqualTo(original.body());
		assertThat(charges(key)).isOne();
	}

	@Test
	void serverErrorRollsBackTheHandlersWriteAndIsNotKept() throws Exception {
		String key = newKey();
		HttpResponse<String> failed = post("/failing-charges/" + key, key);
		assertThat(failed.statusCode()).isEqualTo(500);
		assertThat(charges(key)).as("charges after a 500 in transactional mode").isZero();
		HttpResponse<String> retry = post("/failing-charges/" + key, key);
		assertThat(retry.statusCode()).isEqualTo(500);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
	}

	@Test
	void unhandledExceptionRollsBackTheHandlersWrite() throws Exception {
		String key = newKey();
		HttpResponse<String> failed = post("/throwing-charges/" + key, key);
		assertThat(failed.statusCode()).isEqualTo(500);
		assertThat(charges(key)).isZero();
	}

	@Test
	void lostLockRollsBackTheHandlersWriteAndAnswers503WithRetryAfter() throws Exception {
		String key = newKey();
		HttpResponse<String> response = post("/stolen-charges/" + key, key);
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((contentType) -> assertThat(contentType).startsWith("application/problem+json"));
		assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(response.body()).contains("\"status\":503").contains("Idempotency-Key").doesNotContain("charge-id");
		assertThat(charges(key)).as("charges after the outcome could not be kept").isZero();
	}

	@Test
	void clientErrorAfterAFailedParticipantIsKeptAndTheWriteRolledBack() throws Exception {
		String key = newKey();
		HttpResponse<String> rejected = post("/rejected-charges/" + key, key);
		assertThat(rejected.statusCode()).isEqualTo(422);
		assertThat(charges(key)).isZero();
		HttpResponse<String> retry = post("/rejected-charges/" + key, key);
		assertThat(retry.statusCode()).isEqualTo(422);
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(charges(key)).isZero();
	}

	@Test
	void successAfterAFailedParticipantIsReplacedBy503AndTheWriteRolledBack() throws Exception {
		String key = newKey();
		HttpResponse<String> response = post("/swallowing-charges/" + key, key);
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
		assertThat(charges(key)).isZero();
	}

	@Test
	void transactionalModeNeedsTheJdbcStore() {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> start(WebApp.class, "lock.idempotency.transactional=true", "lock.store=memory"))
			.havingRootCause()
			.isInstanceOf(InvalidConfigurationPropertyValueException.class)
			.withMessageContaining("lock.idempotency.transactional")
			.withMessageContaining("lock.store=jdbc");
	}

	@Test
	void transactionalModeNeedsATransactionManager() {
		assertThatExceptionOfType(Exception.class)
			.isThrownBy(() -> start(WebApp.class, "lock.idempotency.transactional=true",
					"spring.autoconfigure.exclude=org.springframework.boot.jdbc.autoconfigure."
							+ "DataSourceTransactionManagerAutoConfiguration"))
			.havingRootCause()
			.isInstanceOf(InvalidConfigurationPropertyValueException.class)
			.withMessageContaining("lock.idempotency.transactional")
			.withMessageContaining("PlatformTransactionManager");
	}

	private static ConfigurableApplicationContext start(Class<?> application, String... properties) {
		ConfigurableApplicationContext started = new SpringApplicationBuilder(application).properties(properties())
			.properties(properties)
			.run();
		contexts.add(started);
		return started;
	}

	private static String[] properties() {
		return new String[] { "server.port=0", "spring.main.banner-mode=off", "lock.store=jdbc",
				"lock.jdbc.initialize-schema=always", "spring.datasource.url=" + postgres.jdbcUrl(),
				"spring.datasource.username=" + postgres.username() };
	}

	private int charges(String key) {
		return new JdbcTemplate(context.getBean(DataSource.class))
			.queryForObject("SELECT count(*) FROM tx_charges WHERE idempotency_key = ?", Integer.class, key);
	}

	private HttpResponse<String> post(String path, String key) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
			.timeout(Duration.ofSeconds(20))
			.header("Content-Type", "application/json")
			.header("Idempotency-Key", key)
			.POST(HttpRequest.BodyPublishers.ofString("{}"))
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

	static class Charges {

		private final JdbcTemplate jdbc;

		Charges(DataSource dataSource) {
			this.jdbc = new JdbcTemplate(dataSource);
			this.jdbc.execute("CREATE TABLE IF NOT EXISTS tx_charges (id BIGSERIAL PRIMARY KEY, "
					+ "idempotency_key VARCHAR(64) NOT NULL)");
		}

		/**
		 * Writes the charge, then fails: a participant that marks the request's
		 * transaction rollback-only.
		 */
		@Transactional
		public void chargeAndFail(String key) {
			charge(key);
			throw new IllegalArgumentException("card declined");
		}

		@Transactional
		public long charge(String key) {
			return this.jdbc.queryForObject("INSERT INTO tx_charges (idempotency_key) VALUES (?) RETURNING id",
					Long.class, key);
		}

	}

	@RestController
	static class ChargeController {

		private final Charges charges;

		private final DataSource dataSource;

		ChargeController(Charges charges, DataSource dataSource) {
			this.charges = charges;
			this.dataSource = dataSource;
		}

		@IdempotentRequest
		@PostMapping("/charges/{key}")
		ResponseEntity<Map<String, Object>> charge(@PathVariable String key) {
			return ResponseEntity.status(201).body(Map.of("charge-id", this.charges.charge(key)));
		}

		@IdempotentRequest
		@PostMapping("/failing-charges/{key}")
		ResponseEntity<Map<String, Object>> failingCharge(@PathVariable String key) {
			this.charges.charge(key);
			return ResponseEntity.status(500).body(Map.of("error", "provider down"));
		}

		@IdempotentRequest
		@PostMapping("/throwing-charges/{key}")
		ResponseEntity<Map<String, Object>> throwingCharge(@PathVariable String key) {
			this.charges.charge(key);
			throw new IllegalStateException("provider down");
		}

		@IdempotentRequest
		@PostMapping("/rejected-charges/{key}")
		ResponseEntity<Map<String, Object>> rejectedCharge(@PathVariable String key) {
			try {
				this.charges.chargeAndFail(key);
				return ResponseEntity.status(201).build();
			}
			catch (IllegalArgumentException ex) {
				return ResponseEntity.status(422).body(Map.of("error", ex.getMessage()));
			}
		}

		@IdempotentRequest
		@PostMapping("/swallowing-charges/{key}")
		ResponseEntity<Map<String, Object>> swallowingCharge(@PathVariable String key) {
			try {
				this.charges.chargeAndFail(key);
			}
			catch (IllegalArgumentException ex) {
				// swallowed: the handler answers success although its transaction must
				// roll back
			}
			return ResponseEntity.status(201).body(Map.of("charge", "done"));
		}

		/** Charges, then loses its lock: another owner takes the row, in auto-commit. */
		@IdempotentRequest
		@PostMapping("/stolen-charges/{key}")
		ResponseEntity<Map<String, Object>> stolenCharge(@PathVariable String key) throws Exception {
			long id = this.charges.charge(key);
			try (Connection connection = this.dataSource.getConnection();
					PreparedStatement steal = connection
						.prepareStatement("UPDATE lock_store SET owner_token = 'another' WHERE lock_key LIKE ?")) {
				connection.setAutoCommit(true);
				steal.setString(1, "%" + key);
				assertThat(steal.executeUpdate()).isOne();
			}
			return ResponseEntity.status(201).body(Map.of("charge-id", id));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(ChargeController.class)
	static class WebApp {

		@Bean
		Charges charges(DataSource dataSource) {
			return new Charges(dataSource);
		}

	}

}
