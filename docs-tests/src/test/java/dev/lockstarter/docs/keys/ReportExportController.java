package dev.lockstarter.docs.keys;

import java.net.URI;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.store.LockException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * An export that answers 202 with a link to the running export instead of a 409 while one
 * is already running for the tenant, and while the lock store is down.
 */
@RestController
public class ReportExportController {

	// tag::fallback[]
	@PostMapping("/tenants/{tenant}/exports")
	@ExclusiveRequest(name = "export", key = "#tenant", fallback = "alreadyRunning", fallbackOnStoreFailure = true)
	public ResponseEntity<String> export(@PathVariable String tenant) {
		return ResponseEntity.status(HttpStatus.CREATED).body(runExport(tenant));
	}

	// same parameters, then the failure: a LockConflictException, or a LockStoreException
	// with fallbackOnStoreFailure = true (so the parameter is their common LockException)
	ResponseEntity<String> alreadyRunning(String tenant, LockException failure) {
		return ResponseEntity.accepted().location(URI.create("/tenants/" + tenant + "/exports/current")).build();
	}
	// end::fallback[]

	private String runExport(String tenant) {
		return "export of " + tenant;
	}

}
