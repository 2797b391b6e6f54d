package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.lockstarter.sample.user.User;
import dev.lockstarter.sample.user.UserNames;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the sample accepts from a person: user names within a rule and normalized before
 * the lock key is built, payment amounts that are whole numbers, and guarded form
 * submissions with a form token. Everything outside gets a {@code 400} problem that says
 * what is allowed, without echoing the input.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.points-service.latency=500ms", "sample.payments.latency=10ms" })
class InputRulesTests {

	private static final String PRECOMPOSED = "Ren\u00e9e";

	private static final String DECOMPOSED = "Rene\u0301e";

	private final SampleClient client = new SampleClient();

	@LocalServerPort
	private int port;

	@Test
	void namesOutsideTheRuleAreRejectedWith400SayingWhatIsAllowed() {
		List<String> names = List.of("two words", "\u00a0", "\u200b", "alice\u200b", "nbsp\u00a0name", "tab\tname",
				"line\nbreak", "_leading", "-leading", ".leading", "semi;colon", "emoji\ud83d\ude00",
				"a".repeat(UserNames.MAX_LENGTH + 1));
		for (String path : List.of(SampleClient.SAFE, SampleClient.UNSAFE)) {
			for (String name : names) {
				HttpResponse<String> response = this.client.post(base(), path,
						"{\"userName\": " + jsonString(name) + "}");
				assertThat(response.statusCode()).as(path + " " + escape(name)).isEqualTo(400);
				assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
				assertThat(this.client.problem(response)).containsEntry("title", "Invalid user name")
					.hasEntrySatisfying("detail", (detail) -> assertThat((String) detail).contains(UserNames.RULE));
				assertThat(this.client.findByName(base(), name)).isEmpty();
			}
		}
	}

	@Test
	void nameOfThirtyLettersInAnyScriptIsAccepted() {
		String name = "\u540d".repeat(UserNames.MAX_LENGTH - 8) + UUID.randomUUID().toString().substring(0, 8);
		HttpResponse<String> response = this.client.register(base(), SampleClient.SAFE, name);
		assertThat(response.statusCode()).isEqualTo(201);
		assertThat(this.client.user(response).userName()).isEqualTo(name);
	}

	@Test
	void megabyteNamesAreRejectedWithoutBeingEchoed() {
		for (int megabytes : List.of(1, 10)) {
			String name = "x".repeat(megabytes * 1024 * 1024);
			HttpResponse<String> response = this.client.register(base(), SampleClient.SAFE, name);
			assertThat(response.statusCode()).as(megabytes + " MB").isEqualTo(400);
			assertThat(response.body().length()).as("problem size").isLessThan(1024);
			assertThat(this.client.problem(response)).containsEntry("title", "Invalid user name");
		}
	}

	@Test
	void oneVisibleNameInTwoUnicodeFormsIsOneUserAndOneLock() {
		String suffix = UUID.randomUUID().toString().substring(0, 8);
		List<HttpResponse<String>> responses = this.client.sendTogether(2, (i) -> this.client.registration(base(),
				SampleClient.SAFE, ((i == 0) ? PRECOMPOSED : DECOMPOSED) + suffix));
		assertThat(responses).extracting(HttpResponse::statusCode).containsExactlyInAnyOrder(201, 409);
		User user = this.client.user(responses.stream().filter((r) -> r.statusCode() == 201).findFirst().orElseThrow());
		assertThat(user.userName()).isEqualTo(PRECOMPOSED + suffix);
		// Looked up in either form, the one user is found
		assertThat(this.client.findByName(base(), PRECOMPOSED + suffix)).containsExactly(user);
		assertThat(this.client.findByName(base(), DECOMPOSED + suffix)).containsExactly(user);
		// And registering the other form afterwards finds the name taken
		HttpResponse<String> again = this.client.register(base(), SampleClient.SAFE, DECOMPOSED + suffix);
		assertThat(again.statusCode()).isEqualTo(422);
	}

	@Test
	void paymentAmountsThatAreNotPositiveWholeJsonNumbersAreRejectedWith400() {
		List<String> bodies = List.of("{\"amount\": 1.9}", "{\"amount\": \"100\"}", "{\"amount\": 0}",
				"{\"amount\": -5}", "{\"amount\": true}", "{\"amount\": null}", "{}", "not json");
		for (String body : bodies) {
			HttpResponse<String> response = this.client.pay(base(), UUID.randomUUID().toString(), body);
			assertThat(response.statusCode()).as(body).isEqualTo(400);
			Map<String, Object> problem = this.client.problem(response);
			assertThat(problem).as(body)
				.containsEntry("title", "Invalid payment")
				.hasEntrySatisfying("detail",
						(detail) -> assertThat((String) detail).contains("positive whole number of minor units"));
		}
		assertThat(this.client.pay(base(), UUID.randomUUID().toString(), "{\"amount\": 1250}").statusCode())
			.isEqualTo(201);
	}

	@Test
	void guardedFormWithoutAValidTokenIsRejectedWith400() {
		for (String token : List.of("", "short", "has spaces in it ok", "x".repeat(65), "\u00e9".repeat(20))) {
			HttpResponse<String> response = this.client.post(base(), "/api/form/users",
					"{\"userName\": \"formuser\", \"formToken\": " + jsonString(token) + "}");
			assertThat(response.statusCode()).as(token).isEqualTo(400);
			assertThat(this.client.problem(response)).containsEntry("title", "Invalid form token");
		}
		HttpResponse<String> missing = this.client.post(base(), "/api/form/users", "{\"userName\": \"formuser\"}");
		assertThat(missing.statusCode()).isEqualTo(400);
		assertThat(this.client.findByName(base(), "formuser")).isEmpty();
	}

	@Test
	void guardedFormRegistersOncePerToken() {
		String token = UUID.randomUUID().toString();
		String name = "form" + UUID.randomUUID().toString().substring(0, 8);
		String body = "{\"userName\": \"" + name + "\", \"formToken\": \"" + token + "\"}";
		HttpResponse<String> first = this.client.post(base(), "/api/form/users", body);
		assertThat(first.statusCode()).isEqualTo(201);
		// The first submission has returned; the same form within two seconds meets the
		// form's lock, not the taken name
		HttpResponse<String> second = this.client.post(base(), "/api/form/users", body);
		assertThat(second.statusCode()).isEqualTo(409);
		assertThat(this.client.problem(second)).containsEntry("type", "urn:lockstarter:problem:lock-conflict");
		assertThat(this.client.findByName(base(), name)).hasSize(1);
	}

	private URI base() {
		return URI.create("http://127.0.0.1:" + this.port);
	}

	private static String jsonString(String value) {
		StringBuilder json = new StringBuilder("\"");
		value.codePoints().forEach((c) -> {
			if (c == '"' || c == '\\' || c < 0x20) {
				json.append(String.format("\\u%04x", c));
			}
			else {
				json.appendCodePoint(c);
			}
		});
		return json.append('"').toString();
	}

	private static String escape(String value) {
		return jsonString(value.length() > 40 ? value.substring(0, 40) + "..." : value);
	}

}
