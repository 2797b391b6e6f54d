package dev.lockstarter.sample.export;

import java.time.Instant;

/**
 * A finished export.
 *
 * @param exportId the export's id
 * @param tenant the tenant whose report was exported
 * @param startedAt when the export started, once it held its permit
 * @param finishedAt when it finished, before it gave its permit back
 * @since 0.1.0
 */
public record Export(String exportId, String tenant, Instant startedAt, Instant finishedAt) {

}
