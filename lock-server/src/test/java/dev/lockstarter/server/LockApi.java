package dev.lockstarter.server;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Calls the lock API through real HTTP and checks every response against the OpenAPI
 * document.
 */
final class LockApi {

	static final String LOCK_PATH = "/v1/namespaces/{namespace}/locks/{key}";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	private final OpenApiContract contract;

	LockApi(OpenApiContract contract) {
		this.contract = contract;
	}

	/**
	 * Send a request on a lock.
	 * @param method the method
	 * @param url the server's base URL
	 * @param namespace the namespace, as it goes into the path
	 * @param encodedKey the key, percent-encoded
	 * @param apiKey the API key, or {@code null} for none
	 * @param ownerToken the owner token header, or {@code null} for none
	 * @param body a JSON body, or {@code null} for none
	 * @return the response
	 */
	Response send(String method, String url, String namespace, String encodedKey, String apiKey, String ownerToken,
			String body) {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create(url + "/v1/namespaces/" + namespace + "/locks/" + encodedKey))
			.timeout(Duration.ofSeconds(60))
			.method(method,
					(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		if (apiKey != null) {
			request.header("Authorization", "Bearer " + apiKey);
		}
		if (ownerToken != null) {
			request.header("Lock-Owner-Token", ownerToken);
		}
		if (body != null) {
			request.header("Content-Type", "application/json");
		}
		try {
			HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
			Optional<String> contentType = response.headers().firstValue("Content-Type");
			this.contract.check(method, LOCK_PATH, response.statusCode(), contentType.orElse(null), response.body());
			return new Response(response.statusCode(), response,
					response.body().isEmpty() ? null : JSON.readTree(response.body()));
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	Response acquire(String url, String key, String apiKey, String body) {
		return send("POST", url, "tests", key, apiKey, null, body);
	}

	Response renew(String url, String key, String apiKey, String token, String body) {
		return send("PUT", url, "tests", key, apiKey, token, body);
	}

	Response release(String url, String key, String apiKey, String token) {
		return send("DELETE", url, "tests", key, apiKey, token, null);
	}

	Response status(String url, String key, String apiKey) {
		return send("GET", url, "tests", key, apiKey, null, null);
	}

	/**
	 * A response.
	 *
	 * @param status its status
	 * @param raw the whole response
	 * @param json its body, or {@code null} if empty
	 */
	record Response(int status, HttpResponse<String> raw, JsonNode json) {

		String header(String name) {
			return this.raw.headers().firstValue(name).orElse(null);
		}

		String text(String field) {
			return this.json.get(field).asString();
		}

		long number(String field) {
			return this.json.get(field).asLong();
		}

	}

}
