package dev.lockstarter.autoconfigure.reactive;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * A WebFlux application with the sample app's registration contract, written reactively
 * end to end: its data lives in Redis, reached through the reactive template, and its
 * locked endpoints return {@code Mono}s.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import(ReactiveRegistrationApp.RegistrationController.class)
class ReactiveRegistrationApp {

	/** The Redis list of the registrations of a user name. */
	static String usersKey(String userName) {
		return "users:" + userName;
	}

	/**
	 * Open the application's own reactive Redis connection at startup: Spring Data Redis
	 * opens it on first use, blocking the thread that uses it first, an event loop.
	 */
	@Bean
	ApplicationRunner openReactiveRedisConnection(ReactiveStringRedisTemplate redis) {
		return (arguments) -> redis.hasKey("warm-up").block(Duration.ofSeconds(10));
	}

	record Registration(String userName) {
	}

	@RestController
	static class RegistrationController {

		private final ReactiveStringRedisTemplate redis;

		RegistrationController(ReactiveStringRedisTemplate redis) {
			this.redis = redis;
		}

		@PostMapping("/api/users")
		@ExclusiveRequest(name = "registration", key = "#registration.userName()")
		public Mono<ResponseEntity<Map<String, Object>>> register(@RequestBody Registration registration,
				@RequestParam(defaultValue = "500") long delayMillis) {
			String userName = registration.userName();
			String key = usersKey(userName);
			String userId = UUID.randomUUID().toString();
			return this.redis.opsForList().size(key).flatMap((registered) -> {
				if (registered > 0) {
					return Mono.error(new ResponseStatusException(HttpStatus.UNPROCESSABLE_CONTENT,
							"User name already registered"));
				}
				return Mono.delay(Duration.ofMillis(delayMillis))
					.then(this.redis.opsForList().rightPush(key, userId))
					.thenReturn(ResponseEntity.created(URI.create("/api/users/" + userId))
						.<Map<String, Object>>body(Map.of("userId", userId, "userName", userName, "points", 100)));
			});
		}

		@GetMapping("/api/users")
		public Mono<Long> registrations(@RequestParam String userName) {
			return this.redis.opsForList().size(usersKey(userName));
		}

		@PostMapping("/api/failing")
		@ExclusiveRequest(name = "registration", key = "#userName")
		public Mono<String> failing(@RequestParam String userName) {
			return Mono.delay(Duration.ofMillis(100))
				.then(Mono.error(new IllegalStateException("points service down")));
		}

		@PostMapping("/api/waiting")
		@ExclusiveRequest(name = "registration", key = "#userName", waitTime = "5s")
		public Mono<String> waiting(@RequestParam String userName) {
			return Mono.just("waited for " + userName);
		}

	}

}
