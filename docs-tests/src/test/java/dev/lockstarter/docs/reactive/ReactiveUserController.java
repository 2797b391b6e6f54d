package dev.lockstarter.docs.reactive;

import java.net.URI;

import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * A WebFlux endpoint locked on the user name.
 */
@RestController
public class ReactiveUserController {

	private final ReactiveUsers users;

	public ReactiveUserController(ReactiveUsers users) {
		this.users = users;
	}

	// tag::register[]
	@PostMapping("/api/users")
	@ExclusiveRequest(key = "#registration.userName()")
	public Mono<ResponseEntity<User>> register(@RequestBody Registration registration) {
		return this.users.register(registration.userName())
			.map((user) -> ResponseEntity.created(URI.create("/api/users/" + user.id())).body(user));
	}
	// end::register[]

}
