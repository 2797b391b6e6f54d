package dev.lockstarter.sample;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.idempotency.IdempotentRequestInterceptor;
import dev.lockstarter.test.postgres.PostgresServerExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An instance of the sample app (profile {@code jdbc}, payments in PostgreSQL) dies by
 * {@code SIGKILL} in the middle of an idempotent payment; a second instance then gets the
 * client's retry with the same {@code Idempotency-Key}. With
 * {@code lock.idempotency.transactional=true} the payment exists exactly once whatever
 * the crash point; without it, a crash between the payment's commit and the storing of
 * its response makes the retry pay again: the window the transactional mode closes.
 * <p>
 * The dying instance runs in a child JVM ({@link CrashingSampleApplication}), which
 * prints a marker at the crash point; its output goes to
 * {@code target/crash-tests/*.log}.
 */
class IdempotentPaymentsCrashWithPostgresTests {

	/** Short, so that the dead instance's in-progress lock expires soon. */
	private static final Duration LOCK_TTL = Duration.ofSeconds(2);

	private static final Duration CHILD_START_TIMEOUT = Duration.ofSeconds(90);

	@RegisterExtension
	static final PostgresServerExtension postgres = new PostgresServerExtension();

	private final SampleClient client = new SampleClient();

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void closeResources() throws Exception {
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
	}

	@Test
	void crashBeforeTheCommitRollsThePaymentBackAndTheRetryPaysOnce() throws Exception {
		long amount = uniqueAmount();
		String key = UUID.randomUUID().toString();
		crashDuringPayment(true, "write", key, amount);
		assertThat(paymentsOf(amount)).as("payments after the crash before the commit").isZero();
		HttpResponse<String> retry = retryOnASecondInstance(true, key, amount);
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotentRequestInterceptor.IDEMPOTENT_REPLAYED)).isEmpty();
		assertThat(paymentsOf(amount)).as("payments after the retry").isOne();
	}

	@Test
	void crashAfterTheCommitKeepsTheResponseWithThePaymentAndTheRetryReplaysIt() throws Exception {
		long amount = uniqueAmount();
		String key = UUID.randomUUID().toString();
		crashDuringPayment(true, "commit", key, amount);
		assertThat(paymentsOf(amount)).as("payments after the crash after the commit").isOne();
		HttpResponse<String> retry = retryOnASecondInstance(true, key, amount);
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotentRequestInterceptor.IDEMPOTENT_REPLAYED)).hasValue("true");
		assertThat(this.client.paymentOf(retry).amount()).isEqualTo(amount);
		assertThat(paymentsOf(amount)).as("payments after the retry").isOne();
	}

	@Test
	void withoutTheTransactionalModeACrashAfterThePaymentsCommitMakesTheRetryPayAgain() throws Exception {
		long amount = uniqueAmount();
		String key = UUID.randomUUID().toString();
		crashDuringPayment(false, "commit", key, amount);
		assertThat(paymentsOf(amount)).as("payments after the crash after the payment's commit").isOne();
		HttpResponse<String> retry = retryOnASecondInstance(false, key, amount);
		assertThat(retry.statusCode()).isEqualTo(201);
		assertThat(retry.headers().firstValue(IdempotentRequestInterceptor.IDEMPOTENT_REPLAYED)).isEmpty();
		assertThat(paymentsOf(amount)).as("payments after the retry: the documented window").isEqualTo(2);
	}

	/**
	 * Start the sample in a child JVM with the crash hook, send it the payment, kill it
	 * with SIGKILL as soon as it reaches the crash point.
	 */
	private void crashDuringPayment(boolean transactional, String crashAt, String key, long amount) throws Exception {
		int port = freePort();
		Path log = Path.of("target", "crash-tests",
				getClass().getSimpleName() + "-" + crashAt + "-" + transactional + "-" + port + ".log");
		Files.createDirectories(log.getParent());
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(List.of(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), CrashingSampleApplication.class.getName()));
		command.addAll(List.of(properties(transactional, port)));
		command.add("--sample.test.crash-at=" + crashAt);
		Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		this.resources.add(() -> {
			child.destroyForcibly();
			child.waitFor(10, TimeUnit.SECONDS);
		});
		awaitListening(child, port, log);
		URI base = URI.create("http://127.0.0.1:" + port);
		CompletableFuture<HttpResponse<String>> payment = this.client.payAsync(base, key, body(amount));
		awaitInLog(log, CrashingSampleApplication.MARKER, child, Duration.ofSeconds(30));
		child.destroyForcibly();
		assertThat(child.waitFor(10, TimeUnit.SECONDS)).as("child killed").isTrue();
		assertThat(child.exitValue()).as("exit value of a JVM killed by SIGKILL").isEqualTo(137);
		assertThat(payment).failsWithin(Duration.ofSeconds(10));
	}

	/**
	 * Start a second instance in this JVM and send it the client's retry until the dead
	 * instance's in-progress lock has expired (409 until then).
	 */
	private HttpResponse<String> retryOnASecondInstance(boolean transactional, String key, long amount) {
		ConfigurableApplicationContext second = new SpringApplicationBuilder(SampleApplication.class)
			.run(properties(transactional, 0));
		this.resources.add(second);
		URI base = SampleClient.base(second);
		return await("an answer other than 409 to the retry").atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> this.client.pay(base, key, body(amount)), (response) -> response.statusCode() != 409);
	}

	private static String[] properties(boolean transactional, int port) {
		return new String[] { "--spring.profiles.active=jdbc", "--server.port=" + port, "--spring.main.banner-mode=off",
				"--spring.datasource.url=" + postgres.jdbcUrl(), "--spring.datasource.username=" + postgres.username(),
				"--spring.datasource.password=", "--lock.ttl=" + LOCK_TTL.toMillis() + "ms",
				"--lock.idempotency.transactional=" + transactional, "--sample.payments.latency=0ms",
				"--management.endpoints.web.exposure.include=health" };
	}

	private static String body(long amount) {
		return "{\"amount\": " + amount + "}";
	}

	private static long uniqueAmount() {
		return ThreadLocalRandom.current().nextLong(1_000_000, 1_000_000_000);
	}

	private static int paymentsOf(long amount) throws SQLException {
		try (Connection connection = DriverManager.getConnection(postgres.jdbcUrl(), postgres.username(), "");
				PreparedStatement count = connection
					.prepareStatement("SELECT count(*) FROM sample_payments WHERE amount = ?")) {
			count.setLong(1, amount);
			try (ResultSet rows = count.executeQuery()) {
				rows.next();
				return rows.getInt(1);
			}
		}
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static void awaitListening(Process child, int port, Path log) {
		await("child listening on " + port + "; see " + log.toAbsolutePath()).atMost(CHILD_START_TIMEOUT)
			.pollInterval(Duration.ofMillis(200))
			.until(() -> {
				assertThat(child.isAlive()).as("child alive; its output: %s", log.toAbsolutePath()).isTrue();
				try (Socket socket = new Socket("127.0.0.1", port)) {
					return true;
				}
				catch (IOException notYet) {
					return false;
				}
			});
	}

	private static void awaitInLog(Path log, String marker, Process child, Duration timeout) {
		await("'" + marker + "' in " + log.toAbsolutePath()).atMost(timeout)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				if (Files.readString(log, StandardCharsets.UTF_8).contains(marker)) {
					return true;
				}
				assertThat(child.isAlive()).as("child alive; its output: %s", log.toAbsolutePath()).isTrue();
				return false;
			});
	}

}
