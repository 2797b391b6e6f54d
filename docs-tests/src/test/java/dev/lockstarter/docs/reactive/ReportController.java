package dev.lockstarter.docs.reactive;

import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A report built once per key, shared with simultaneous callers.
 */
@RestController
public class ReportController {

	private final Reports reports;

	public ReportController(Reports reports) {
		this.reports = reports;
	}

	// tag::report[]
	@GetMapping("/api/reports/{id}")
	@ExclusiveRequest(key = "#id", onConflict = OnConflict.SHARE_RESULT)
	public Mono<Report> report(@PathVariable String id) {
		return this.reports.build(id); // runs once per key across all instances
	}
	// end::report[]

}
