package dev.lockstarter.docs.reactive;

import reactor.core.publisher.Mono;

/**
 * Builds reports.
 */
public interface Reports {

	Mono<Report> build(String id);

}
