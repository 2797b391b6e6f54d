package dev.lockstarter.autoconfigure.reactive;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * End-to-end tests of single-flight ({@code onConflict = SHARE_RESULT}) on a WebFlux
 * endpoint that returns a {@code Mono}: two application instances on Reactor Netty share
 * one real Redis, and BlockHound records any blocking call on an event-loop thread, the
 * reads and writes of the shared result included.
 */
class WebFluxSingleFlightIntegrationTests extends InstancesOnRedis {

	@Test
	void twelveSimultaneousRequestsAcrossTwoInstancesRunTheMethodOnceAndAllGetItsValue() throws Exception {
		int first = start();
		int second = start();
		int callers = 12;
		List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
		for (int i = 0; i < callers; i++) {
			int port = (i % 2 == 0) ? first : second;
			futures.add(this.http.sendAsync(report(port, "monthly", callers), HttpResponse.BodyHandlers.ofString()));
		}
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> future : futures) {
			responses.add(future.get());
		}
		assertThat(responses).allSatisfy((response) -> assertThat(response.statusCode()).isEqualTo(200));
		String body = responses.get(0).body();
		assertThat(body).contains("\"id\":\"monthly\"").contains("\"run\":1").contains("\"token\":\"");
		assertThat(responses).allSatisfy((response) -> assertThat(response.body()).isEqualTo(body));
		assertThat(redis.server().command("GET", ReactiveRegistrationApp.runsKey("monthly"))).isEqualTo("1");
		assertThat(redis.server().command("EXISTS", ReactiveRegistrationApp.overlapsKey("monthly"))).isEqualTo("0");
		assertThat(redis.server().command("GET", ReactiveRegistrationApp.arrivedKey("monthly")))
			.isEqualTo(String.valueOf(callers));
		assertThat(redis.server().command("EXISTS", "lock:{report:monthly}")).isEqualTo("0");
		assertThat(redis.server().command("EXISTS", "lock:{report:monthly}:result")).isEqualTo("1");
	}

	@Test
	void requestAfterTheHolderFinishedRunsTheMethodAgain() throws Exception {
		int first = start();
		int second = start();
		HttpResponse<String> before = send(report(first, "daily", 1));
		HttpResponse<String> after = send(report(second, "daily", 1));
		assertThat(before.body()).contains("\"run\":1");
		assertThat(after.body()).contains("\"run\":2");
		assertThat(redis.server().command("GET", ReactiveRegistrationApp.runsKey("daily"))).isEqualTo("2");
	}

	private static HttpRequest report(int port, String id, int callers) {
		return HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/reports/" + id + "?callers=" + callers))
			.timeout(Duration.ofSeconds(20))
			.GET()
			.build();
	}

	private HttpResponse<String> send(HttpRequest request) throws Exception {
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

}
