package dev.lockstarter.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.sample.payment.Payment;

/**
 * A small HTTP client for the sample app's payment API.
 */
final class PaymentsClient {

	static final String PAYMENTS = "/api/payments";

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(TIMEOUT)
		.build();

	private final JsonMapper json = JsonMapper.builder().build();

	HttpRequest payment(URI base, @Nullable String idempotencyKey, String body) {
		HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(PAYMENTS))
			.header("Content-Type", "application/json")
			.timeout(TIMEOUT)
			.POST(HttpRequest.BodyPublishers.ofString(body));
		if (idempotencyKey != null) {
			request.header("Idempotency-Key", "\"" + idempotencyKey + "\"");
		}
		return request.build();
	}

	HttpResponse<String> pay(URI base, @Nullable String idempotencyKey, String body) {
		return send(payment(base, idempotencyKey, body));
	}

	CompletableFuture<HttpResponse<String>> payAsync(URI base, String idempotencyKey, String body) {
		return this.http.sendAsync(payment(base, idempotencyKey, body), HttpResponse.BodyHandlers.ofString());
	}

	List<Payment> findAll(URI base) {
		HttpResponse<String> response = send(HttpRequest.newBuilder(base.resolve(PAYMENTS)).timeout(TIMEOUT).GET().build());
		if (response.statusCode() != 200) {
			throw new IllegalStateException("GET payments answered " + response.statusCode() + ": " + response.body());
		}
		return List.of(this.json.readValue(response.body(), Payment[].class));
	}

	Payment paymentOf(HttpResponse<String> response) {
		return this.json.readValue(response.body(), Payment.class);
	}

	@SuppressWarnings("unchecked")
	Map<String, Object> problem(HttpResponse<String> response) {
		return this.json.readValue(response.body(), Map.class);
	}

	private HttpResponse<String> send(HttpRequest request) {
		try {
			return this.http.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
