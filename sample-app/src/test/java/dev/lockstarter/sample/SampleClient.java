package dev.lockstarter.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.sample.payment.Payment;
import dev.lockstarter.sample.user.User;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A small HTTP client for the sample app's API, over {@link HttpClient}.
 */
final class SampleClient {

	static final String SAFE = "/api/users";

	static final String UNSAFE = "/api/unsafe/users";

	static final String RAW = "/api/raw/users";

	static final String PAYMENTS = "/api/payments";

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(TIMEOUT)
		.build();

	private final JsonMapper json = JsonMapper.builder().build();

	HttpRequest postJson(URI base, String path, String body) {
		return HttpRequest.newBuilder(base.resolve(path))
			.header("Content-Type", "application/json")
			.timeout(TIMEOUT)
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
	}

	HttpRequest registration(URI base, String path, String userName) {
		return postJson(base, path, "{\"userName\": \"" + userName + "\"}");
	}

	/**
	 * Return the address of a running sample app instance.
	 */
	static URI base(ConfigurableApplicationContext context) {
		return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
	}

	HttpResponse<String> register(URI base, String path, String userName) {
		return send(registration(base, path, userName));
	}

	CompletableFuture<HttpResponse<String>> registerAsync(URI base, String path, String userName) {
		return this.http.sendAsync(registration(base, path, userName), HttpResponse.BodyHandlers.ofString());
	}

	HttpResponse<String> post(URI base, String path, String body) {
		return send(postJson(base, path, body));
	}

	HttpResponse<String> get(URI uri) {
		return send(getRequest(uri));
	}

	HttpRequest getRequest(URI uri) {
		return HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build();
	}

	long longField(HttpResponse<String> response, String field) {
		return ((Number) this.json.readValue(response.body(), Map.class).get(field)).longValue();
	}

	List<User> findByName(URI base, String userName) {
		HttpResponse<String> response = get(
				base.resolve(SAFE + "?userName=" + URLEncoder.encode(userName, StandardCharsets.UTF_8)));
		if (response.statusCode() != 200) {
			throw new IllegalStateException("GET by name answered " + response.statusCode() + ": " + response.body());
		}
		return List.of(this.json.readValue(response.body(), User[].class));
	}

	long counterValue(HttpResponse<String> response) {
		return ((Number) this.json.readValue(response.body(), Map.class).get("value")).longValue();
	}

	User user(HttpResponse<String> response) {
		return this.json.readValue(response.body(), User.class);
	}

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

	List<Payment> findPayments(URI base) {
		HttpResponse<String> response = get(base.resolve(PAYMENTS));
		if (response.statusCode() != 200) {
			throw new IllegalStateException("GET payments answered " + response.statusCode() + ": " + response.body());
		}
		return List.of(this.json.readValue(response.body(), Payment[].class));
	}

	Payment paymentOf(HttpResponse<String> response) {
		return this.json.readValue(response.body(), Payment.class);
	}

	JsonNode tree(HttpResponse<String> response) {
		return this.json.readTree(response.body());
	}

	@SuppressWarnings("unchecked")
	Map<String, Object> problem(HttpResponse<String> response) {
		return this.json.readValue(response.body(), Map.class);
	}

	/**
	 * Send requests from as many threads, released together once every thread is ready.
	 */
	List<HttpResponse<String>> sendTogether(int count, IntFunction<HttpRequest> requests) {
		ExecutorService executor = Executors.newFixedThreadPool(count);
		try {
			CountDownLatch ready = new CountDownLatch(count);
			CountDownLatch start = new CountDownLatch(1);
			List<Future<HttpResponse<String>>> futures = new ArrayList<>(count);
			Duration longest = TIMEOUT;
			for (int i = 0; i < count; i++) {
				HttpRequest request = requests.apply(i);
				Duration timeout = request.timeout().orElse(TIMEOUT);
				longest = (timeout.compareTo(longest) > 0) ? timeout : longest;
				futures.add(executor.submit(() -> {
					ready.countDown();
					start.await();
					return this.http.send(request, HttpResponse.BodyHandlers.ofString());
				}));
			}
			if (!ready.await(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Request threads did not start");
			}
			start.countDown();
			// Every request ends within its own timeout, whichever order they answer in
			long deadline = System.nanoTime() + longest.plus(TIMEOUT).toNanos();
			List<HttpResponse<String>> responses = new ArrayList<>(count);
			for (Future<HttpResponse<String>> future : futures) {
				responses.add(future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
			}
			return responses;
		}
		catch (Exception ex) {
			throw new IllegalStateException("Concurrent requests failed", ex);
		}
		finally {
			executor.shutdownNow();
		}
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
