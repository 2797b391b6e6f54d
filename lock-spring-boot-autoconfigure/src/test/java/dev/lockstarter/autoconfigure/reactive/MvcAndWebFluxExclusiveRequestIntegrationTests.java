package dev.lockstarter.autoconfigure.reactive;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One Spring MVC instance (blocking, on Tomcat) and one WebFlux instance (reactive, on
 * Reactor Netty) lock the same key on one real Redis: whichever stack a request reaches,
 * exactly one registration of a name runs at a time.
 */
class MvcAndWebFluxExclusiveRequestIntegrationTests extends InstancesOnRedis {

	@Test
	void blockingAndReactiveInstancesLockingOneKeyRunOneRegistration() throws Exception {
		int mvc = start(this.contexts, MvcRegistrationApp.class, WebApplicationType.SERVLET);
		int webflux = start(this.contexts, ReactiveRegistrationApp.class, WebApplicationType.REACTIVE);
		assertThat(serverName(0)).contains("Tomcat");
		assertThat(serverName(1)).contains("Netty");
		List<CompletableFuture<HttpResponse<String>>> futures = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			int port = (i % 2 == 0) ? mvc : webflux;
			futures.add(this.http.sendAsync(
					WebFluxExclusiveRequestIntegrationTests.registration(port, "alice", 500).build(),
					HttpResponse.BodyHandlers.ofString()));
		}
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> future : futures) {
			responses.add(future.get());
		}
		Map<Integer, Long> statuses = responses.stream()
			.collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
		assertThat(statuses).containsOnly(Map.entry(201, 1L), Map.entry(409, 19L));
		responses.stream()
			.filter((response) -> response.statusCode() == 409)
			.forEach((response) -> assertThat(response.headers().firstValue("Content-Type"))
				.hasValueSatisfying((type) -> assertThat(type).startsWith("application/problem+json")));
		assertThat(redis.server().command("LLEN", ReactiveRegistrationApp.usersKey("alice"))).isEqualTo("1");
	}

	private String serverName(int index) {
		return ((WebServerApplicationContext) this.contexts.get(index)).getWebServer().getClass().getSimpleName();
	}

	/**
	 * The same registration contract as {@link ReactiveRegistrationApp}, on Spring MVC
	 * with blocking Redis calls.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(MvcRegistrationApp.RegistrationController.class)
	static class MvcRegistrationApp {

		@RestController
		static class RegistrationController {

			private final StringRedisTemplate redis;

			RegistrationController(StringRedisTemplate redis) {
				this.redis = redis;
			}

			@PostMapping("/api/users")
			@ExclusiveRequest(name = "registration", key = "#registration.userName()")
			public ResponseEntity<String> register(@RequestBody ReactiveRegistrationApp.Registration registration,
					@RequestParam(defaultValue = "500") long delayMillis) throws InterruptedException {
				String key = ReactiveRegistrationApp.usersKey(registration.userName());
				Long registered = this.redis.opsForList().size(key);
				if (registered != null && registered > 0) {
					return ResponseEntity.unprocessableContent().build();
				}
				Thread.sleep(delayMillis);
				String userId = UUID.randomUUID().toString();
				this.redis.opsForList().rightPush(key, userId);
				return ResponseEntity.created(URI.create("/api/users/" + userId)).body(userId);
			}

		}

	}

}
