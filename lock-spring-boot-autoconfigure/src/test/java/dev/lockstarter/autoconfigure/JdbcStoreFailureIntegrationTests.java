package dev.lockstarter.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockOperations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What an {@code @ExclusiveRequest} web endpoint on the JDBC store answers when its
 * database stops answering ({@code SIGSTOP} to every server process) or is killed, with
 * Spring Boot's own DataSource and its defaults (HikariCP, whose wait for a connection is
 * 30 s): {@code 503} within the store's timeout and a second, on every call, and the
 * method does not run. Subclasses name the database, a new server for each test.
 */
abstract class JdbcStoreFailureIntegrationTests {

	/** {@code lock.jdbc.timeout}. */
	private static final Duration STORE_TIMEOUT = Duration.ofSeconds(1);

	private static final Duration BOUND = STORE_TIMEOUT.plusSeconds(1);

	private static final int CALLS = 3;

	static final AtomicInteger bodies = new AtomicInteger();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private ConfigurableApplicationContext context;

	/**
	 * Return the {@code spring.datasource.*} properties of the database.
	 */
	protected abstract String[] dataSourceProperties();

	/**
	 * Stop every process of the database server ({@code SIGSTOP}).
	 */
	protected abstract void pauseDatabase();

	/**
	 * Let the paused database server go on.
	 */
	protected abstract void resumeDatabase();

	/**
	 * Kill every process of the database server ({@code SIGKILL}).
	 */
	protected abstract void killDatabase() throws Exception;

	@BeforeEach
	void resetBodies() {
		bodies.set(0);
	}

	@AfterEach
	void closeContext() {
		if (this.context != null) {
			this.context.close();
		}
	}

	@Test
	void pausedDatabaseGives503WithinTheStoreTimeoutOnEveryCall() throws Exception {
		int port = start();
		assertLockingWorks(port, "ada");
		pauseDatabase();
		try {
			assertEveryCallFailsClosedInTime(port, "ada");
		}
		finally {
			resumeDatabase();
		}
	}

	@Test
	void killedDatabaseGives503WithinTheStoreTimeoutOnEveryCall() throws Exception {
		int port = start();
		assertLockingWorks(port, "bob");
		killDatabase();
		assertEveryCallFailsClosedInTime(port, "bob");
	}

	/**
	 * A call runs, and one that meets a holder is refused with a problem response, as the
	 * calls of a failed database will be: so the time of the first of them is not that of
	 * loading the classes of problem responses.
	 */
	private void assertLockingWorks(int port, String userName) throws Exception {
		assertThat(post(port, userName).statusCode()).isEqualTo(201);
		try (var lease = this.context.getBean(LockOperations.class)
			.acquire("JdbcFailureController.register:" + userName, Duration.ofSeconds(30))) {
			assertThat(post(port, userName).statusCode()).isEqualTo(409);
		}
	}

	private void assertEveryCallFailsClosedInTime(int port, String userName) throws Exception {
		bodies.set(0);
		List<Integer> statuses = new ArrayList<>();
		List<Duration> times = new ArrayList<>();
		for (int call = 0; call < CALLS; call++) {
			long started = System.nanoTime();
			HttpResponse<String> response = post(port, userName);
			times.add(Duration.ofNanos(System.nanoTime() - started));
			statuses.add(response.statusCode());
			assertThat(response.body()).contains("urn:lockstarter:problem:lock-store-unavailable");
		}
		assertThat(statuses).as("statuses of %d calls", CALLS).containsOnly(503);
		assertThat(times).as("times to answer of %d calls (lock.jdbc.timeout=%s)", CALLS, STORE_TIMEOUT)
			.allSatisfy((time) -> assertThat(time).isLessThan(BOUND));
		assertThat(bodies).as("runs of the method").hasValue(0);
	}

	private int start() {
		this.context = new SpringApplicationBuilder(JdbcFailureApp.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=jdbc",
					"lock.jdbc.initialize-schema=always", "lock.jdbc.timeout=" + STORE_TIMEOUT.toMillis() + "ms")
			.properties(dataSourceProperties())
			.run();
		return this.context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
	}

	private HttpResponse<String> post(int port, String userName) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/registrations?userName=" + userName))
			.timeout(Duration.ofSeconds(60))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(JdbcFailureController.class)
	static class JdbcFailureApp {

	}

	@RestController
	static class JdbcFailureController {

		@PostMapping("/registrations")
		@ExclusiveRequest(key = "#userName")
		public ResponseEntity<String> register(@RequestParam String userName) {
			bodies.incrementAndGet();
			return ResponseEntity.status(HttpStatus.CREATED).body("registered");
		}

	}

}
