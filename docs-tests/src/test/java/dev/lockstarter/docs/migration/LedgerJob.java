package dev.lockstarter.docs.migration;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.core.Lease;
import dev.lockstarter.interceptor.ExclusiveRequestContext;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job that checks it runs under its lock, where ShedLock code calls
 * {@code LockAssert.assertLocked()}, and passes the fencing token on.
 */
@Component
public class LedgerJob {

	private final Ledger ledger;

	LedgerJob(Ledger ledger) {
		this.ledger = ledger;
	}

	// tag::current-lease[]
	@Scheduled(cron = "0 0 * * * *")
	@ExclusiveJob
	public void closeHour() {
		Lease lease = ExclusiveRequestContext.currentLease();
		if (lease == null) {
			throw new IllegalStateException("closeHour() runs without its lock: is it called through the proxy?");
		}
		// the token is 0 on a store that issues none: the ledger refuses 0
		this.ledger.closeHour(lease.fencingToken());
	}
	// end::current-lease[]

}
