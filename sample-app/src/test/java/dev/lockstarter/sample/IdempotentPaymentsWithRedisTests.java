package dev.lockstarter.sample;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.sample.payment.Payment;
import dev.lockstarter.sample.payment.PaymentRepository;
import dev.lockstarter.sample.payment.RedisPaymentRepository;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Idempotent payments on two instances of the sample app with the {@code redis} profile,
 * sharing one real Redis server for their locks, kept responses and payments.
 */
class IdempotentPaymentsWithRedisTests {

	private static final Duration LATENCY = Duration.ofMillis(400);

	/**
	 * Short, so that a test can outlive it; long enough for a replay right after a
	 * payment.
	 */
	private static final Duration RETENTION = Duration.ofSeconds(2);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	private final SampleClient client = new SampleClient();

	@BeforeAll
	static void startInstances() {
		first = start();
		second = start();
	}

	@AfterAll
	static void stopInstances() {
		for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] { first, second }) {
			if (context != null) {
				context.close();
			}
		}
	}

	@Test
	void bothInstancesKeepPaymentsInRedis() {
		for (ConfigurableApplicationContext context : List.of(first, second)) {
			assertThat(context.getBean(PaymentRepository.class)).isInstanceOf(RedisPaymentRepository.class);
		}
	}

	@Test
	void retryOnTheOtherInstanceReplaysThePaymentAndTakesNoSecondOne() {
		int before = this.client.findPayments(SampleClient.base(first)).size();
		String key = newKey();
		HttpResponse<String> original = this.client.pay(SampleClient.base(first), key, "{\"amount\": 100}");
		assertThat(original.statusCode()).isEqualTo(201);
		Payment payment = this.client.paymentOf(original);
		assertThat(payment.amount()).isEqualTo(100);
		assertThat(UUID.fromString(payment.paymentId())).isNotNull();
		assertThat(original.headers().firstValue("Location")).hasValue("/api/payments/" + payment.paymentId());
		assertThat(original.headers().firstValue("Idempotent-Replayed")).isEmpty();
		HttpResponse<String> replay = this.client.pay(SampleClient.base(second), key, "{\"amount\": 100}");
		assertThat(replay.statusCode()).isEqualTo(201);
		assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(replay.headers().firstValue("Location")).isEqualTo(original.headers().firstValue("Location"));
		assertThat(replay.headers().firstValue("Content-Type"))
			.isEqualTo(original.headers().firstValue("Content-Type"));
		assertThat(this.client.paymentOf(replay)).isEqualTo(payment);
		List<Payment> payments = this.client.findPayments(SampleClient.base(second));
		assertThat(payments).hasSize(before + 1).contains(payment);
	}

	@Test
	void sameKeyWithAnotherAmountIsRejectedWith422() {
		int before = this.client.findPayments(SampleClient.base(first)).size();
		String key = newKey();
		assertThat(this.client.pay(SampleClient.base(first), key, "{\"amount\": 100}").statusCode()).isEqualTo(201);
		HttpResponse<String> reused = this.client.pay(SampleClient.base(second), key, "{\"amount\": 200}");
		assertProblem(reused, 422, "urn:lockstarter:problem:idempotency-key-reused");
		assertThat(this.client.findPayments(SampleClient.base(first))).hasSize(before + 1);
	}

	@Test
	void paymentWhileTheSameKeyIsInProgressOnTheOtherInstanceIsRejectedWith409() throws Exception {
		int before = this.client.findPayments(SampleClient.base(first)).size();
		String key = newKey();
		CompletableFuture<HttpResponse<String>> inProgress = this.client.payAsync(SampleClient.base(first), key,
				"{\"amount\": 100}");
		// Sent once the first holds the key's lock,
		// while it is in progress (it takes LATENCY)
		awaitHeldOn(first, key);
		HttpResponse<String> conflict = this.client.pay(SampleClient.base(second), key, "{\"amount\": 100}");
		HttpResponse<String> created = inProgress.get(10, TimeUnit.SECONDS);
		assertThat(created.statusCode()).isEqualTo(201);
		assertProblem(conflict, 409, "urn:lockstarter:problem:idempotent-request-in-progress");
		assertThat(conflict.headers().firstValue("Retry-After")).isPresent();
		HttpResponse<String> retry = this.client.pay(SampleClient.base(second), key, "{\"amount\": 100}");
		assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		assertThat(this.client.paymentOf(retry)).isEqualTo(this.client.paymentOf(created));
		assertThat(this.client.findPayments(SampleClient.base(first))).hasSize(before + 1);
	}

	@Test
	void paymentWithoutAKeyIsRejectedWith400AndTakesNoPayment() {
		int before = this.client.findPayments(SampleClient.base(first)).size();
		HttpResponse<String> response = this.client.pay(SampleClient.base(first), null, "{\"amount\": 100}");
		assertProblem(response, 400, "urn:lockstarter:problem:invalid-idempotency-key");
		assertThat(this.client.findPayments(SampleClient.base(first))).hasSize(before);
	}

	@Test
	void invalidAmountIsRejectedWith400AndItsRetryGetsTheSameAnswer() {
		int before = this.client.findPayments(SampleClient.base(first)).size();
		for (String body : List.of("{\"amount\": 0}", "{\"amount\": -5}", "{}")) {
			String key = newKey();
			HttpResponse<String> response = this.client.pay(SampleClient.base(first), key, body);
			assertProblem(response, 400, "urn:lockstarter:sample:problem:invalid-payment");
			HttpResponse<String> retry = this.client.pay(SampleClient.base(second), key, body);
			assertThat(retry.statusCode()).isEqualTo(400);
			assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
			assertThat(retry.body()).isEqualTo(response.body());
		}
		assertThat(this.client.findPayments(SampleClient.base(first))).hasSize(before);
	}

	@Test
	void afterTheRetentionTheSameKeyTakesANewPayment() throws Exception {
		int before = this.client.findPayments(SampleClient.base(first)).size();
		String key = newKey();
		Payment original = this.client.paymentOf(this.client.pay(SampleClient.base(first), key, "{\"amount\": 100}"));
		Thread.sleep(RETENTION.toMillis() + 200);
		HttpResponse<String> later = this.client.pay(SampleClient.base(second), key, "{\"amount\": 100}");
		assertThat(later.statusCode()).isEqualTo(201);
		assertThat(later.headers().firstValue("Idempotent-Replayed")).isEmpty();
		assertThat(this.client.paymentOf(later).paymentId()).isNotEqualTo(original.paymentId());
		assertThat(this.client.findPayments(SampleClient.base(first))).hasSize(before + 2);
	}

	private void assertProblem(HttpResponse<String> response, int status, String type) {
		assertThat(response.statusCode()).isEqualTo(status);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
		assertThat(this.client.problem(response)).containsEntry("status", status).containsEntry("type", type);
	}

	private static ConfigurableApplicationContext start() {
		return new SpringApplicationBuilder(SampleApplication.class).profiles("redis")
			.run("--server.port=0", "--spring.data.redis.host=" + redis.host(),
					"--spring.data.redis.port=" + redis.port(),
					"--sample.payments.latency=" + LATENCY.toMillis() + "ms",
					"--lock.idempotency.retention=" + RETENTION.toMillis() + "ms");
	}

	/** Wait until an instance holds the lock of an idempotency key, for 10 s at most. */
	private static void awaitHeldOn(ConfigurableApplicationContext instance, String key) {
		LockTemplate locks = instance.getBean(LockTemplate.class);
		await("lock of key '" + key + "' taken in time").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(2))
			.until(() -> locks.getHeldLocks().stream().anyMatch((held) -> held.key().endsWith(":" + key)));
	}

	private static String newKey() {
		return UUID.randomUUID().toString();
	}

}
