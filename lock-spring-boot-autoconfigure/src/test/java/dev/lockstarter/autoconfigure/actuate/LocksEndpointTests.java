package dev.lockstarter.autoconfigure.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.autoconfigure.LockIdempotencyAutoConfiguration;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.ExclusiveRequestDescriptor;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.IdempotentRequestDescriptor;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.LeaseDescriptor;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.LocksDescriptor;
import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.ResultSharingDescriptor;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.idempotency.IdempotentRequest;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.boot.actuate.autoconfigure.endpoint.jackson.JacksonEndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.jackson.EndpointJsonMapper;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the output of {@link LocksEndpoint}, on the in-memory store.
 */
class LocksEndpointTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withPropertyValues("lock.store=memory", "management.endpoints.web.exposure.include=locks", "lock.ttl=20s",
				"lock.max-hold=5m")
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, LocksEndpointAutoConfiguration.class,
				JacksonEndpointAutoConfiguration.class))
		.withUserConfiguration(Services.class);

	@Test
	void describesTheStoreAndItsKeyPrefix() {
		this.contextRunner.withPropertyValues("lock.key-prefix=app:").run((context) -> {
			LocksDescriptor locks = context.getBean(LocksEndpoint.class).locks();
			assertThat(locks.store().kind()).isEqualTo("memory");
			assertThat(locks.store().type()).isEqualTo(InMemoryLockStore.class.getName());
			assertThat(locks.store().settings()).containsExactly(Map.entry("keyPrefix", "app:"));
		});
	}

	@Test
	void listsTheDeclaredMethodsWithTheirEffectiveSettings() {
		this.contextRunner.run((context) -> {
			List<ExclusiveRequestDescriptor> methods = context.getBean(LocksEndpoint.class).locks().exclusiveRequests();
			assertThat(methods).extracting(ExclusiveRequestDescriptor::name)
				.containsExactly("Services.unnamed", "orders", "sum", "users");
			assertThat(methods.get(0)).isEqualTo(new ExclusiveRequestDescriptor("Services.unnamed",
					Services.class.getName() + ".unnamed()", List.of(), "PT20S", "PT0S", 0, null, "PT0S", true, "PT5M",
					OnConflict.REJECT, 409, null, "mutex"));
			assertThat(methods.get(1)).isEqualTo(new ExclusiveRequestDescriptor("orders",
					Services.class.getName() + ".order(String, int)", List.of("#customer", "#number"), "PT20S", "PT0S",
					3, "PT0.2S", "PT0S", true, "PT5M", OnConflict.REJECT, 409, null, "mutex"));
			assertThat(methods.get(2)).isEqualTo(new ExclusiveRequestDescriptor("sum",
					Services.class.getName() + ".sum(List)", List.of("#values"), "PT20S", "PT40S", 0, null, "PT0S",
					true, "PT5M", OnConflict.SHARE_RESULT, 409,
					new ResultSharingDescriptor("PT30S", OnHolderFailure.TAKE_OVER, "java.lang.Integer"), "mutex"));
			assertThat(methods.get(3)).isEqualTo(new ExclusiveRequestDescriptor("users",
					Services.class.getName() + ".register(String)", List.of("#userName"), "PT5S", "PT1S", 0, null,
					"PT2S", true, "PT1M", OnConflict.REJECT, 422, null, "mutex"));
		});
	}

	@Test
	void configuredDefaultsApplyToMethodsThatSetNone() {
		this.contextRunner
			.withPropertyValues("lock.ttl=7s", "lock.wait-time=500ms", "lock.renew=false", "lock.max-hold=0",
					"lock.web.conflict-status=423", "lock.result-ttl=3s")
			.run((context) -> {
				List<ExclusiveRequestDescriptor> methods = context.getBean(LocksEndpoint.class)
					.locks()
					.exclusiveRequests();
				assertThat(methods.get(0)).isEqualTo(new ExclusiveRequestDescriptor("Services.unnamed",
						Services.class.getName() + ".unnamed()", List.of(), "PT7S", "PT0.5S", 0, null, "PT0S", false,
						null, OnConflict.REJECT, 423, null, "mutex"));
				assertThat(methods.get(3).conflictStatus()).isEqualTo(422);
				assertThat(methods.get(2).resultSharing().resultTtl()).isEqualTo("PT30S");
			});
	}

	@Test
	void listsTheLocksHeldNowWithoutTheirKeys() {
		this.contextRunner.run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			assertThat(endpoint.locks().leases()).isEmpty();
			try (Lease lease = acquire(context, "users:alice")) {
				assertThat(endpoint.locks().leases()).singleElement().satisfies((held) -> {
					assertThat(held.name()).isEqualTo("users");
					assertThat(held.key()).isNull();
					assertThat(Duration.parse(held.age())).isBetween(Duration.ZERO, Duration.ofSeconds(10));
					assertThat(Duration.parse(held.timeToExpiry())).isBetween(Duration.ofSeconds(20),
							Duration.ofSeconds(30));
				});
				JsonNode json = toJson(context);
				assertThat(json.get("leases").get(0).propertyNames()).containsExactlyInAnyOrder("name", "acquiredAt",
						"age", "timeToExpiry", "kind");
				assertThat(json.get("leases").get(0).get("kind").asString()).isEqualTo("mutex");
				assertThat(json.toString()).doesNotContain("alice");
			}
			try (Lease permit = context.getBean(LockOperations.class)
				.acquire("exports:t1", LockOptions.ttl(Duration.ofSeconds(30)).withKind(LockKind.permits(2)))) {
				assertThat(endpoint.locks().leases()).singleElement()
					.extracting(LeaseDescriptor::kind)
					.isEqualTo("permits(2)");
			}
			assertThat(endpoint.locks().leases()).isEmpty();
		});
	}

	@Test
	void listsEachKeyOfAMultiKeyLeaseAsAHeldLockOfItsName() {
		this.contextRunner.run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			try (Lease lease = context.getBean(LockOperations.class)
				.acquire(List.of("account:A", "account:B"),
						LockOptions.ttl(Duration.ofSeconds(30)).withName("account"))) {
				assertThat(endpoint.locks().leases()).hasSize(2).allSatisfy((held) -> {
					assertThat(held.name()).isEqualTo("account");
					assertThat(held.key()).isNull();
				});
				assertThat(toJson(context).toString()).doesNotContain("account:A").doesNotContain("account:B");
			}
			assertThat(endpoint.locks().leases()).isEmpty();
		});
	}

	@Test
	void showsTheKeysOfHeldLocksWhenAskedTo() {
		this.contextRunner.withPropertyValues("lock.actuator.show-keys=true").run((context) -> {
			try (Lease lease = acquire(context, "users:alice")) {
				assertThat(context.getBean(LocksEndpoint.class).locks().leases()).extracting(LeaseDescriptor::key)
					.containsExactly("users:alice");
			}
		});
	}

	@Test
	void ownerTokensNeverAppear() {
		this.contextRunner.withPropertyValues("lock.actuator.show-keys=true")
			.withUserConfiguration(RecordingStoreConfiguration.class)
			.run((context) -> {
				RecordingStore store = context.getBean(RecordingStore.class);
				try (Lease lease = acquire(context, "users:alice")) {
					assertThat(store.tokens).hasSize(1);
					String json = toJson(context).toString();
					assertThat(json).contains("users:alice");
					for (String token : store.tokens) {
						assertThat(json).doesNotContain(token);
					}
				}
			});
	}

	@Test
	void settingsOfAStoreTheApplicationDefinesAreNotTakenFromProperties() {
		this.contextRunner.withUserConfiguration(RecordingStoreConfiguration.class).run((context) -> {
			LocksDescriptor locks = context.getBean(LocksEndpoint.class).locks();
			assertThat(locks.store().type()).isEqualTo(RecordingStore.class.getName());
			assertThat(locks.store().settings()).containsOnlyKeys("keyPrefix");
		});
	}

	@Test
	void dynamoDbEndpointIsShownWithoutUserInformation() {
		this.contextRunner
			.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.endpoint=http://key:secret@localhost:8000/x?t=y",
					"lock.dynamodb.region=eu-west-1", "lock.dynamodb.table=my-locks")
			.run((context) -> {
				Map<String, Object> settings = context.getBean(LocksEndpoint.class).locks().store().settings();
				assertThat(settings).containsEntry("table", "my-locks")
					.containsEntry("client", "own")
					.containsEntry("endpoint", "http://localhost:8000")
					.containsEntry("region", "eu-west-1")
					.containsEntry("timeout", "PT2S");
				assertThat(toJson(context).toString()).doesNotContain("secret").doesNotContain("key:");
			});
	}

	@Test
	void listsTheIdempotentHandlersWithTheirEffectiveSettings() {
		new WebApplicationContextRunner()
			.withPropertyValues("lock.store=memory", "management.endpoints.web.exposure.include=locks", "lock.ttl=20s",
					"lock.max-hold=5m", "lock.idempotency.retention=2h")
			.withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class, LockAutoConfiguration.class,
					LockIdempotencyAutoConfiguration.class, LocksEndpointAutoConfiguration.class))
			.withUserConfiguration(PaymentController.class)
			.run((context) -> assertThat(context.getBean(LocksEndpoint.class).locks().idempotentRequests())
				.containsExactly(
						new IdempotentRequestDescriptor("idempotency",
								PaymentController.class.getName() + ".pay(String)", List.of("POST,PUT /payments"),
								"Idempotency-Key", true, "PT2H", "PT20S", true, "PT5M", 409),
						new IdempotentRequestDescriptor("idempotency",
								PaymentController.class.getName() + ".refund(String)", List.of("POST /refunds"),
								"Idempotency-Key", false, "PT30M", "PT20S", true, "PT5M", 409)));
	}

	private static Lease acquire(AssertableApplicationContext context, String key) {
		return context.getBean(LockOperations.class)
			.acquire(key, LockOptions.ttl(Duration.ofSeconds(30)).withName("users"));
	}

	/**
	 * Serialize the endpoint's answer as the Actuator does.
	 */
	private static JsonNode toJson(AssertableApplicationContext context) {
		EndpointJsonMapper mapper = context.getBean(EndpointJsonMapper.class);
		return mapper.get().valueToTree(context.getBean(LocksEndpoint.class).locks());
	}

	static class Services {

		@ExclusiveRequest(name = "users", key = "#userName", ttl = "5s", waitTime = "1s", holdAtLeast = "2s",
				maxHold = "1m", conflictStatus = 422)
		public String register(String userName) {
			return userName;
		}

		@ExclusiveRequest(name = "orders", key = { "#customer", "#number" }, retries = 3, retryInterval = "200ms")
		public void order(String customer, int number) {
		}

		@ExclusiveRequest(name = "sum", key = "#values", onConflict = OnConflict.SHARE_RESULT, resultTtl = "30s",
				onHolderFailure = OnHolderFailure.TAKE_OVER)
		public Integer sum(List<Integer> values) {
			return values.stream().mapToInt(Integer::intValue).sum();
		}

		@ExclusiveRequest
		public void unnamed() {
		}

	}

	@RestController
	static class PaymentController {

		@IdempotentRequest
		@RequestMapping(path = "/payments", method = { RequestMethod.POST, RequestMethod.PUT })
		String pay(@RequestBody String payment) {
			return payment;
		}

		@IdempotentRequest(retention = "30m", required = false)
		@PostMapping("/refunds")
		String refund(@RequestBody String refund) {
			return refund;
		}

		@PostMapping("/plain")
		String plain(@RequestBody String body) {
			return body;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RecordingStoreConfiguration {

		@Bean
		RecordingStore recordingStore() {
			return new RecordingStore();
		}

	}

	/**
	 * The in-memory store, noting the owner tokens it is given.
	 */
	static class RecordingStore extends InMemoryLockStore {

		final Set<String> tokens = ConcurrentHashMap.newKeySet();

		@Override
		public AcquireReply tryAcquire(String key, String token, Duration ttl) {
			this.tokens.add(token);
			return super.tryAcquire(key, token, ttl);
		}

	}

}
