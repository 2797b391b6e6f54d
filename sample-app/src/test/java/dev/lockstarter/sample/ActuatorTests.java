package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;

import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample app's Actuator endpoints over HTTP: {@code health} with the lock store
 * component, {@code metrics}, {@code prometheus} and the lock starter's {@code locks}.
 */
class ActuatorTests {

	/** Long enough to look at a registration's lock while it is held. */
	private static final String POINTS_LATENCY = "sample.points-service.latency=1500ms";

	private static final SampleClient client = new SampleClient();

	@Nested
	@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = POINTS_LATENCY)
	class DefaultProfile {

		@LocalServerPort
		private int port;

		@Test
		void locksEndpointListsTheDeclaredMethodsAndTheStore() {
			JsonNode locks = locks(base());
			assertThat(locks.at("/store/kind").asString()).isEqualTo("memory");
			assertThat(locks.at("/store/settings/keyPrefix").asString()).isEqualTo("lock:");
			JsonNode registration = exclusiveRequest(locks, "user-registration");
			assertThat(registration.get("method").asString())
				.isEqualTo("dev.lockstarter.sample.user.UserRegistrationService.registerExclusively(String)");
			assertThat(registration.get("keys").toString()).isEqualTo("[\"#userName\"]");
			assertThat(registration.get("ttl").asString()).isEqualTo("PT10S");
			assertThat(registration.get("waitTime").asString()).isEqualTo("PT0S");
			assertThat(registration.get("renew").asBoolean()).isTrue();
			assertThat(registration.get("onConflict").asString()).isEqualTo("REJECT");
			assertThat(registration.get("conflictStatus").asInt()).isEqualTo(409);
			assertThat(registration.has("resultSharing")).isFalse();
			assertThat(exclusiveRequest(locks, "counter").get("waitTime").asString()).isEqualTo("PT10S");
			assertThat(exclusiveRequest(locks, "sum").at("/resultSharing/resultTtl").asString()).isEqualTo("PT10S");
			assertThat(locks.get("idempotentRequests")).singleElement().satisfies((payments) -> {
				assertThat(payments.get("handler").asString()).endsWith("PaymentController.pay(PaymentRequest)");
				assertThat(payments.get("mappings").toString()).isEqualTo("[\"POST /api/payments\"]");
				assertThat(payments.get("keyHeader").asString()).isEqualTo("Idempotency-Key");
			});
		}

		@Test
		void locksEndpointShowsTheLeaseOfARunningRegistrationWithoutItsKey() throws Exception {
			assertHeldLeaseIsShownWithoutKey(base());
		}

		@Test
		void healthShowsTheLockStoreUp() {
			JsonNode lockStore = lockStoreHealth(base());
			assertThat(lockStore.get("status").asString()).isEqualTo("UP");
			assertThat(lockStore.at("/details/store").asString()).isEqualTo("memory");
			assertThat(lockStore.at("/details/roundTrip").asString()).startsWith("PT");
		}

		@Test
		void metricsAndPrometheusAreExposed() {
			assertThat(client.get(base().resolve("/actuator/metrics")).statusCode()).isEqualTo(200);
			HttpResponse<String> prometheus = client.get(base().resolve("/actuator/prometheus"));
			assertThat(prometheus.statusCode()).isEqualTo(200);
			assertThat(prometheus.body()).contains("jvm_memory_used_bytes");
		}

		@Test
		void otherEndpointsAreNotExposed() {
			assertThat(client.get(base().resolve("/actuator/env")).statusCode()).isEqualTo(404);
			assertThat(client.get(base().resolve("/actuator/beans")).statusCode()).isEqualTo(404);
		}

		private URI base() {
			return URI.create("http://127.0.0.1:" + this.port);
		}

	}

	@Nested
	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	class RedisProfile {

		@RegisterExtension
		static final RedisServerExtension redis = new RedisServerExtension();

		private ConfigurableApplicationContext context;

		@BeforeAll
		void start() {
			this.context = new SpringApplicationBuilder(SampleApplication.class).profiles("redis")
				.run("--server.port=0", "--spring.data.redis.host=" + redis.host(),
						"--spring.data.redis.port=" + redis.port(), "--" + POINTS_LATENCY);
		}

		@AfterAll
		void stop() {
			if (this.context != null) {
				this.context.close();
			}
		}

		@Test
		void healthShowsTheLockStoreWithTheEvictionPolicyAndRedisUp() {
			redis.server().command("CONFIG", "SET", "maxmemory-policy", "noeviction");
			JsonNode health = client.tree(client.get(SampleClient.base(this.context).resolve("/actuator/health")));
			assertThat(health.get("status").asString()).isEqualTo("UP");
			assertThat(health.at("/components/redis/status").asString()).isEqualTo("UP");
			JsonNode lockStore = health.at("/components/lockStore");
			assertThat(lockStore.get("status").asString()).isEqualTo("UP");
			assertThat(lockStore.at("/details/store").asString()).isEqualTo("redis");
			assertThat(lockStore.at("/details/evictionPolicy").asString()).isEqualTo("noeviction");
			assertThat(lockStore.at("/details").has("warning")).isFalse();
		}

		@Test
		void locksEndpointDescribesTheRedisStoreAndShowsTheLeaseOfARunningRegistrationWithoutItsKey() throws Exception {
			URI base = SampleClient.base(this.context);
			JsonNode store = locks(base).get("store");
			assertThat(store.get("kind").asString()).isEqualTo("redis");
			assertThat(store.at("/settings/channel").asString()).isEqualTo("lock:released");
			assertThat(store.at("/settings/mode").asString()).isEqualTo("standalone");
			assertHeldLeaseIsShownWithoutKey(base);
		}

	}

	private static void assertHeldLeaseIsShownWithoutKey(URI base) throws Exception {
		String userName = "user-" + UUID.randomUUID().toString().substring(0, 8);
		assertThat(locks(base).get("leases")).isEmpty();
		CompletableFuture<HttpResponse<String>> registration = client.registerAsync(base, SampleClient.SAFE, userName);
		HttpResponse<String> held = awaitLease(base);
		JsonNode lease = client.tree(held).get("leases").get(0);
		assertThat(lease.get("name").asString()).isEqualTo("user-registration");
		assertThat(lease.has("key")).isFalse();
		assertThat(Duration.parse(lease.get("age").asString())).isLessThan(Duration.ofSeconds(10));
		assertThat(Duration.parse(lease.get("timeToExpiry").asString())).isPositive();
		assertThat(held.body()).doesNotContain(userName);
		assertThat(registration.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
		assertThat(locks(base).get("leases")).isEmpty();
	}

	/**
	 * Return the first answer of the locks endpoint that lists a lease.
	 */
	private static HttpResponse<String> awaitLease(URI base) {
		AtomicReference<HttpResponse<String>> listed = new AtomicReference<>();
		await("a lease listed in time").atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> {
				HttpResponse<String> response = client.get(base.resolve("/actuator/locks"));
				assertThat(response.statusCode()).isEqualTo(200);
				assertThat(client.tree(response).get("leases")).as("leases, last answer %s", response.body())
					.isNotEmpty();
				listed.set(response);
			});
		return listed.get();
	}

	private static JsonNode locks(URI base) {
		HttpResponse<String> response = client.get(base.resolve("/actuator/locks"));
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((contentType) -> assertThat(contentType).contains("json"));
		return client.tree(response);
	}

	private static JsonNode exclusiveRequest(JsonNode locks, String name) {
		for (JsonNode method : locks.get("exclusiveRequests")) {
			if (method.get("name").asString().equals(name)) {
				return method;
			}
		}
		throw new AssertionError("No @ExclusiveRequest named " + name + " in " + locks);
	}

	private static JsonNode lockStoreHealth(URI base) {
		HttpResponse<String> response = client.get(base.resolve("/actuator/health"));
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return client.tree(response).at("/components/lockStore");
	}

}
