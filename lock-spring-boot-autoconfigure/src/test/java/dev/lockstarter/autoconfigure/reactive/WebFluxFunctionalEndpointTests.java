package dev.lockstarter.autoconfigure.reactive;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.web.LockProblemWebExceptionHandler;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Lock exceptions of a WebFlux functional endpoint ({@code RouterFunction}), which reach
 * no {@code @ControllerAdvice}, get the same problem responses as those of annotated
 * controllers, through {@link LockProblemWebExceptionHandler}; other errors are left to
 * Spring Boot's error handler. On a real Netty server, with the in-memory store, under
 * BlockHound.
 */
class WebFluxFunctionalEndpointTests {

	private static ConfigurableApplicationContext app;

	private static WebTestClient client;

	@BeforeAll
	static void start() {
		// Before any Reactor thread exists, as in every WebFlux test of this execution
		BlockingCalls.install();
		app = new SpringApplicationBuilder(FunctionalApp.class).web(WebApplicationType.REACTIVE)
			.run("--server.port=0", "--spring.main.banner-mode=off", "--lock.store=memory");
		int port = ((WebServerApplicationContext) app).getWebServer().getPort();
		client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + port)
			.responseTimeout(Duration.ofSeconds(10))
			.build();
	}

	@AfterAll
	static void stop() {
		app.close();
	}

	@BeforeEach
	void clearBlockingCalls() {
		BlockingCalls.clear();
	}

	@AfterEach
	void checkForBlockingCalls() {
		assertThat(BlockingCalls.detected()).as("blocking calls on non-blocking threads").isEmpty();
	}

	@Test
	void conflictIsTheLockConflictProblemWithRetryAfter() throws Exception {
		Thread holder = new Thread(() -> client.post().uri("/fn/users/alice").exchange().expectStatus().isOk());
		holder.start();
		awaitHeld("alice");
		EntityExchangeResult<String> conflict = client.post()
			.uri("/fn/users/alice")
			.exchange()
			.expectStatus()
			.isEqualTo(409)
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody(String.class)
			.returnResult();
		assertThat(conflict.getResponseHeaders().getFirst("Retry-After")).matches("[1-9][0-9]*");
		assertThat(conflict.getResponseBody()).contains("\"type\":\"urn:lockstarter:problem:lock-conflict\"")
			.contains("\"status\":409")
			.doesNotContain("registration:alice");
		holder.join(10_000);
		assertThat(holder.isAlive()).isFalse();
	}

	@Test
	void blankKeyIsABadRequestProblem() {
		client.post()
			.uri("/fn/blank")
			.exchange()
			.expectStatus()
			.isBadRequest()
			.expectHeader()
			.contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.expectBody()
			.jsonPath("$.type")
			.isEqualTo("urn:lockstarter:problem:invalid-lock-key");
	}

	@Test
	void otherErrorsAreLeftToTheNextHandler() {
		client.post()
			.uri("/fn/failing")
			.exchange()
			.expectStatus()
			.isEqualTo(500)
			.expectHeader()
			.contentType(MediaType.APPLICATION_JSON)
			.expectBody()
			.jsonPath("$.status")
			.isEqualTo(500);
	}

	private static void awaitHeld(String userName) {
		Registrations registrations = app.getBean(Registrations.class);
		await("registration of " + userName + " started in time").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(5))
			.until(() -> registrations.running(userName));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class FunctionalApp {

		@Bean
		Registrations registrations() {
			return new Registrations();
		}

		@Bean
		RouterFunction<ServerResponse> routes(Registrations registrations) {
			return RouterFunctions.route()
				.POST("/fn/users/{name}",
						(request) -> registrations.register(request.pathVariable("name"))
							.flatMap((registered) -> ServerResponse.ok().bodyValue(registered)))
				.POST("/fn/blank",
						(request) -> registrations.register(" ")
							.flatMap((registered) -> ServerResponse.ok().bodyValue(registered)))
				.POST("/fn/failing", (request) -> Mono.error(new IllegalStateException("not a lock error")))
				.build();
		}

	}

	static class Registrations {

		private final Set<String> running = ConcurrentHashMap.newKeySet();

		boolean running(String userName) {
			return this.running.contains(userName);
		}

		@ExclusiveRequest(name = "registration", key = "#userName")
		public Mono<String> register(String userName) {
			return Mono.delay(Duration.ofMillis(500))
				.doOnSubscribe((subscription) -> this.running.add(userName))
				.doFinally((signal) -> this.running.remove(userName))
				.map((tick) -> "registered " + userName);
		}

	}

}
