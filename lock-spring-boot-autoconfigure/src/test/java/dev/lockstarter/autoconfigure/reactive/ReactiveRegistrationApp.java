package dev.lockstarter.autoconfigure.reactive;

import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.WebFilter;

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

	/**
	 * Count the requests for a report as they arrive, before the interceptor sees them,
	 * in Redis, across instances.
	 */
	@Bean
	WebFilter reportArrivals(ReactiveStringRedisTemplate redis) {
		return (exchange, chain) -> {
			String path = exchange.getRequest().getPath().value();
			if (!path.startsWith("/api/reports/")) {
				return chain.filter(exchange);
			}
			return redis.opsForValue()
				.increment(arrivedKey(path.substring("/api/reports/".length())))
				.then(chain.filter(exchange));
		};
	}

	static String arrivedKey(String id) {
		return "arrived:" + id;
	}

	static String runsKey(String id) {
		return "runs:" + id;
	}

	static String overlapsKey(String id) {
		return "overlaps:" + id;
	}

	record Registration(String userName) {
	}

	record Report(String id, long run, String token) {
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

		/**
		 * A single-flight report: counts its runs, and the runs that overlap another, in
		 * Redis; waits until {@code callers} requests have arrived, so that every one of
		 * them finds this run in progress.
		 */
		@GetMapping("/api/reports/{id}")
		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Mono<Report> report(@PathVariable String id, @RequestParam int callers) {
			String running = "running:" + id;
			return this.redis.opsForValue()
				.increment(runsKey(id))
				.flatMap((run) -> this.redis.opsForValue()
					.increment(running)
					.flatMap((now) -> (now > 1) ? this.redis.opsForValue().increment(overlapsKey(id)) : Mono.just(0L))
					.then(arrivals(id, callers))
					.then(Mono.delay(Duration.ofMillis(300)))
					.then(this.redis.opsForValue().decrement(running))
					.thenReturn(new Report(id, run, UUID.randomUUID().toString())));
		}

		private Mono<Long> arrivals(String id, int callers) {
			return this.redis.opsForValue()
				.get(arrivedKey(id))
				.map(Long::parseLong)
				.filter((arrived) -> arrived >= callers)
				.repeatWhenEmpty((empty) -> empty.delayElements(Duration.ofMillis(20)))
				.timeout(Duration.ofSeconds(10));
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
