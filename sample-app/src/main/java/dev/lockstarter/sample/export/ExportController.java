package dev.lockstarter.sample.export;

import java.net.URI;
import java.util.regex.Pattern;

import dev.lockstarter.sample.ProblemResponses;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The export API: {@code POST /api/tenants/{tenant}/exports}, at most
 * {@value ReportExportService#PERMITS} at once per tenant; {@code ?wait=true} waits for a
 * permit instead of being rejected.
 *
 * @since 0.1.0
 */
@RestController
@ConditionalOnBooleanProperty(name = "sample.exports.enabled", matchIfMissing = true)
public class ExportController {

	private static final Pattern TENANT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,29}");

	private static final URI INVALID_TENANT = URI.create("urn:lockstarter:sample:problem:invalid-tenant");

	private final ReportExportService exports;

	/**
	 * Create a new controller.
	 * @param exports the export service
	 */
	public ExportController(ReportExportService exports) {
		this.exports = exports;
	}

	/**
	 * Export a tenant's report.
	 * @param tenant the tenant: 1 to 30 letters, digits, {@code .}, {@code _} or
	 * {@code -}, starting with a letter or a digit
	 * @param wait whether to wait for a permit rather than be rejected
	 * @return {@code 201 Created} with the export, or a {@code 400} problem for an
	 * invalid tenant
	 * @throws InterruptedException if interrupted while exporting
	 */
	@PostMapping("/api/tenants/{tenant}/exports")
	public ResponseEntity<?> export(@PathVariable String tenant, @RequestParam(defaultValue = "false") boolean wait)
			throws InterruptedException {
		if (!TENANT.matcher(tenant).matches()) {
			ProblemDetail problem = ProblemResponses.problem(HttpStatus.BAD_REQUEST, INVALID_TENANT, "Invalid tenant",
					"A tenant is 1 to 30 letters, digits, '.', '_' or '-', starting with a letter or a digit.");
			return ProblemResponses.respond(problem);
		}
		Export export = wait ? this.exports.exportWhenFree(tenant) : this.exports.export(tenant);
		return ResponseEntity.created(URI.create("/api/tenants/" + tenant + "/exports/" + export.exportId()))
			.body(export);
	}

}
