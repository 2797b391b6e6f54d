package dev.lockstarter.docs.reactive;

import reactor.core.publisher.Mono;

/**
 * Stores users without blocking.
 */
public interface ReactiveUsers {

	Mono<User> register(String userName);

}
