package dev.lockstarter.autoconfigure.actuate;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.OncePerRequestFilter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code locks} endpoint's holders and force-release over HTTP, on two instances
 * sharing a real Redis: one with the endpoint's default access, read-only, and one whose
 * access is unrestricted, where an operator (named by the request's principal) frees a
 * key the other instance holds.
 */
@ExtendWith(OutputCaptureExtension.class)
class LockHoldersEndpointIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static ConfigurableApplicationContext readOnly;

	private static ConfigurableApplicationContext unrestricted;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final JsonMapper json = JsonMapper.builder().build();

	private final String prefix = "order:" + UUID.randomUUID() + ":";

	@BeforeAll
	static void startInstances() {
		readOnly = startInstance();
		unrestricted = startInstance("management.endpoint.locks.access=unrestricted");
	}

	@AfterAll
	static void close() {
		readOnly.close();
		unrestricted.close();
	}

	@Test
	void everyInstanceListsTheHoldersOfEveryInstanceAndTellsWhichItHolds() throws Exception {
		LockAttempt held = operations(readOnly).tryAcquire(this.prefix + "a/1",
				LockOptions.ttl(Duration.ofSeconds(30)));
		operations(unrestricted).tryAcquire(this.prefix + "b", LockOptions.ttl(Duration.ofSeconds(20)));

		JsonNode here = get(readOnly, this.prefix);
		JsonNode there = get(unrestricted, this.prefix);

		assertThat(keys(here)).containsExactly(this.prefix + "a/1", this.prefix + "b");
		assertThat(here.get("holders").get(0).get("heldByThisInstance").asBoolean()).isTrue();
		assertThat(there.get("holders").get(0).get("heldByThisInstance").asBoolean()).isFalse();
		assertThat(there.get("holders").get(0).get("owner").asString())
			.isEqualTo(here.get("holders").get(0).get("owner").asString());
		assertThat(held.lease().fencingToken()).isPositive();
		assertThat(here.get("holders").get(0).has("fencingToken"))
			.as("Redis draws tokens on demand and does not list them")
			.isFalse();
		assertThat(Duration.parse(here.get("holders").get(1).get("timeToExpiry").asString())).isPositive()
			.isLessThanOrEqualTo(Duration.ofSeconds(20));
		assertThat(keys(get(readOnly, this.prefix + "a/"))).containsExactly(this.prefix + "a/1");
		JsonNode limited = get(readOnly, this.prefix + "?limit=1");
		assertThat(keys(limited)).containsExactly(this.prefix + "a/1");
		assertThat(limited.get("truncated").asBoolean()).isTrue();
		assertThat(send(readOnly, "GET", this.prefix + "?limit=0", null).statusCode()).isEqualTo(400);
	}

	@Test
	void forceReleaseIsRefusedWhereTheEndpointIsReadOnly() throws Exception {
		String key = this.prefix + "kept";
		operations(unrestricted).tryAcquire(key, LockOptions.ttl(Duration.ofSeconds(30)));

		HttpResponse<String> response = send(readOnly, "DELETE", key, "alice");

		assertThat(response.statusCode()).isBetween(400, 499);
		assertThat(keys(get(readOnly, key))).containsExactly(key);
	}

	@Test
	void anOperatorFreesAKeyAnotherInstanceHoldsAndIsAudited(CapturedOutput output) throws Exception {
		String key = this.prefix + "stuck";
		LockAttempt stuck = operations(readOnly).tryAcquire(key, LockOptions.ttl(Duration.ofSeconds(3)));
		assertThat(stuck.isAcquired()).isTrue();
		AuditEvents audit = unrestricted.getBean(AuditEvents.class);

		HttpResponse<String> response = send(unrestricted, "DELETE", key, "alice");

		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(this.json.readTree(response.body()).get("released").asBoolean()).isTrue();
		assertThat(keys(get(unrestricted, key))).isEmpty();
		assertThat(operations(unrestricted).tryAcquire(key, LockOptions.ttl(Duration.ofSeconds(30))).isAcquired())
			.as("the key is free")
			.isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !stuck.lease().isHeld());
		assertThat(audit.about(key)).singleElement().satisfies((event) -> {
			assertThat(event.getAuditEvent().getPrincipal()).isEqualTo("alice");
			assertThat(event.getAuditEvent().getType()).isEqualTo(LockHolderOperations.FORCE_RELEASE_EVENT);
			assertThat(event.getAuditEvent().getData()).containsEntry("key", key).containsEntry("released", true);
		});
		assertThat(output).contains("Lock '" + key + "' force-released by 'alice' through the locks endpoint");
		assertThat(this.json.readTree(send(unrestricted, "DELETE", this.prefix + "free", "alice").body())
			.get("released")
			.asBoolean()).isFalse();
	}

	@Test
	void anOperatorFreesTheHolderItListedAndNotALockTakenSince() throws Exception {
		String key = this.prefix + "listed";
		// Renewed every second: the holder finds its lock gone within one renewal
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(3));
		LockAttempt listed = operations(readOnly).tryAcquire(key, options);
		String owner = get(unrestricted, key).get("holders").get(0).get("owner").asString();
		assertThat(listed.lease().release()).as("released after the listing").isTrue();
		LockAttempt since = operations(readOnly).tryAcquire(key, options);
		assertThat(since.isAcquired()).isTrue();
		AuditEvents audit = unrestricted.getBean(AuditEvents.class);

		HttpResponse<String> stale = send(unrestricted, "DELETE", key + "?owner=" + owner, "alice");

		assertThat(stale.statusCode()).isEqualTo(200);
		assertThat(this.json.readTree(stale.body()).get("released").asBoolean()).isFalse();
		assertThat(since.lease().isHeld()).as("the lock taken since the listing").isTrue();
		assertThat(audit.about(key)).singleElement()
			.satisfies((event) -> assertThat(event.getAuditEvent().getData()).containsEntry("owner", owner)
				.containsEntry("released", false));

		String current = get(unrestricted, key).get("holders").get(0).get("owner").asString();
		HttpResponse<String> released = send(unrestricted, "DELETE", key + "?owner=" + current, "alice");

		assertThat(this.json.readTree(released.body()).get("released").asBoolean()).isTrue();
		assertThat(keys(get(unrestricted, key))).isEmpty();
		await().atMost(Duration.ofSeconds(10)).until(() -> !since.lease().isHeld());
	}

	private JsonNode get(ConfigurableApplicationContext context, String path) throws Exception {
		HttpResponse<String> response = send(context, "GET", path, null);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return this.json.readTree(response.body());
	}

	private HttpResponse<String> send(ConfigurableApplicationContext context, String method, String path,
			@Nullable String operator) throws IOException, InterruptedException {
		int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/locks/" + path))
			.timeout(Duration.ofSeconds(10))
			.method(method, HttpRequest.BodyPublishers.noBody());
		if (operator != null) {
			request.header(OperatorFilter.HEADER, operator);
		}
		return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private static List<String> keys(JsonNode holders) {
		return holders.get("holders").valueStream().map((holder) -> holder.get("key").asString()).toList();
	}

	private static LockOperations operations(ConfigurableApplicationContext context) {
		return context.getBean(LockOperations.class);
	}

	private static ConfigurableApplicationContext startInstance(String... properties) {
		return new SpringApplicationBuilder(App.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
					"lock.actuator.show-keys=true", "management.endpoints.web.exposure.include=locks")
			.properties(properties)
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		OperatorFilter operatorFilter() {
			return new OperatorFilter();
		}

		@Bean
		AuditEvents auditEvents() {
			return new AuditEvents();
		}

	}

	static class AuditEvents implements ApplicationListener<AuditApplicationEvent> {

		final List<AuditApplicationEvent> received = new CopyOnWriteArrayList<>();

		/**
		 * The events of the force-releases of one key: the test class shares its
		 * instances.
		 */
		List<AuditApplicationEvent> about(String key) {
			return this.received.stream()
				.filter((event) -> key.equals(event.getAuditEvent().getData().get("key")))
				.toList();
		}

		@Override
		public void onApplicationEvent(AuditApplicationEvent event) {
			this.received.add(event);
		}

	}

	/**
	 * Names the request's principal after a header, as an authenticating filter would.
	 */
	static class OperatorFilter extends OncePerRequestFilter {

		static final String HEADER = "X-Operator";

		@Override
		protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
				throws ServletException, IOException {
			String operator = request.getHeader(HEADER);
			if (operator == null) {
				chain.doFilter(request, response);
				return;
			}
			Principal principal = () -> operator;
			chain.doFilter(new HttpServletRequestWrapper(request) {

				@Override
				public Principal getUserPrincipal() {
					return principal;
				}

			}, response);
		}

	}

}
