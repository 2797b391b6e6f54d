package dev.lockstarter.docs.jobs;

import dev.lockstarter.annotation.ExclusiveJob;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A daily report that one instance sends.
 */
@Component
public class ReportJob {

	private final Reports reports;

	public ReportJob(Reports reports) {
		this.reports = reports;
	}

	// tag::daily-report[]
	@Scheduled(cron = "0 0 6 * * *")
	@ExclusiveJob
	public void sendDailyReport() {
		this.reports.sendDaily();
	}
	// end::daily-report[]

}
