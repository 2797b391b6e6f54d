package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.lockstarter.sample.payment.InMemoryPaymentRepository;
import dev.lockstarter.sample.payment.Payment;
import dev.lockstarter.sample.payment.PaymentRepository;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Idempotent payments in the sample app without a profile: the in-memory lock store keeps
 * the responses.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "sample.points-service.latency=10ms")
class DefaultProfilePaymentsTests {

	private final SampleClient client = new SampleClient();

	@LocalServerPort
	private int port;

	@Autowired
	private PaymentRepository payments;

	@Test
	void retryReplaysThePaymentFromMemoryAndTakesNoSecondOne() {
		assertThat(this.payments).isInstanceOf(InMemoryPaymentRepository.class);
		int before = this.payments.findAll().size();
		String key = UUID.randomUUID().toString();
		HttpResponse<String> original = this.client.pay(base(), key, "{\"amount\": 250}");
		HttpResponse<String> replay = this.client.pay(base(), key, "{\"amount\": 250}");
		assertThat(original.statusCode()).isEqualTo(201);
		assertThat(replay.statusCode()).isEqualTo(201);
		assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
		Payment payment = this.client.paymentOf(original);
		assertThat(this.client.paymentOf(replay)).isEqualTo(payment);
		assertThat(this.payments.findAll()).hasSize(before + 1).contains(payment);
	}

	private URI base() {
		return URI.create("http://127.0.0.1:" + this.port);
	}

}
