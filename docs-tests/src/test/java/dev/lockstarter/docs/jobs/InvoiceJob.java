package dev.lockstarter.docs.jobs;

import dev.lockstarter.annotation.ExclusiveJob;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job migrated from ShedLock, keeping its lock name.
 */
@Component
public class InvoiceJob {

	private final Reports reports;

	public InvoiceJob(Reports reports) {
		this.reports = reports;
	}

	// tag::migrated[]
	// was @SchedulerLock(name = "report", lockAtMostFor = "10m", lockAtLeastFor = "30s")
	@Scheduled(cron = "0 */5 * * * *")
	@ExclusiveJob(name = "report", holdAtLeast = "30s", maxHold = "10m")
	public void sendInvoices() {
		this.reports.sendInvoices();
	}
	// end::migrated[]

}
