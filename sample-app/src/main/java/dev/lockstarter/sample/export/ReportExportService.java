package dev.lockstarter.sample.export;

import java.time.Instant;
import java.util.UUID;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.stereotype.Service;

/**
 * Exports a tenant's report, at most {@value #PERMITS} at once per tenant across every
 * instance that shares the lock store: a further call is rejected (409), or waits for a
 * permit.
 *
 * @since 0.1.0
 */
@Service
@ConditionalOnBooleanProperty(name = "sample.exports.enabled", matchIfMissing = true)
public class ReportExportService {

	/** How many exports of one tenant may run at once. */
	public static final int PERMITS = 3;

	private final ExportProperties properties;

	/**
	 * Create a new service.
	 * @param properties the exports' properties
	 */
	public ReportExportService(ExportProperties properties) {
		this.properties = properties;
	}

	/**
	 * Export now, or be rejected while {@value #PERMITS} exports of the tenant run.
	 * @param tenant the tenant
	 * @return the export
	 * @throws InterruptedException if interrupted while exporting
	 */
	@ExclusiveRequest(key = "#tenant", name = "report-export", permits = PERMITS)
	public Export export(String tenant) throws InterruptedException {
		return run(tenant);
	}

	/**
	 * Export, waiting up to 30 seconds for a permit.
	 * @param tenant the tenant
	 * @return the export
	 * @throws InterruptedException if interrupted while exporting
	 */
	@ExclusiveRequest(key = "#tenant", name = "report-export", permits = PERMITS, waitTime = "30s")
	public Export exportWhenFree(String tenant) throws InterruptedException {
		return run(tenant);
	}

	private Export run(String tenant) throws InterruptedException {
		Instant startedAt = Instant.now();
		Thread.sleep(this.properties.getLatency().toMillis());
		return new Export(UUID.randomUUID().toString(), tenant, startedAt, Instant.now());
	}

}
