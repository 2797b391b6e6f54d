package dev.lockstarter.docs.kinds;

import java.time.Duration;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.key.LockKeys;
import org.springframework.stereotype.Service;

/**
 * Report exports, at most two at once per tenant across every instance.
 */
@Service
public class ReportExports {

	private final LockOperations locks;

	public ReportExports(LockOperations locks) {
		this.locks = locks;
	}

	// tag::permits[]
	@ExclusiveRequest(key = "#tenant", permits = 2, waitTime = "5s")
	public String export(String tenant) {
		return render(tenant);
	}
	// end::permits[]

	// tag::programmatic[]
	public String exportNow(String tenant) {
		LockOptions twoAtOnce = LockOptions.ttl(Duration.ofMinutes(1)).withKind(LockKind.permits(2));
		try (Lease permit = this.locks.acquire(LockKeys.of("report-export", tenant), twoAtOnce)) {
			return render(tenant) + " #" + permit.fencingToken();
		}
	}
	// end::programmatic[]

	private String render(String tenant) {
		return "report of " + tenant;
	}

}
