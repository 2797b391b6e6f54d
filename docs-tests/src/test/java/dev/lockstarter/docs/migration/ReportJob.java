package dev.lockstarter.docs.migration;

import dev.lockstarter.annotation.ExclusiveJob;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A ShedLock job rewritten with {@code @ExclusiveJob}, keeping ShedLock's lock name and
 * its durations.
 */
@Component
public class ReportJob {

	private final ReportSender reports;

	ReportJob(ReportSender reports) {
		this.reports = reports;
	}

	// tag::kept-name[]
	@Scheduled(cron = "0 */15 * * * *")
	@ExclusiveJob(name = "report", holdAtLeast = "30s", maxHold = "10m")
	public void sendReport() {
		this.reports.send();
	}
	// end::kept-name[]

}
