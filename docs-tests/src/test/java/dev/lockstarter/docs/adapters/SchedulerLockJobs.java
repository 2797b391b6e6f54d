package dev.lockstarter.docs.adapters;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.docs.migration.ReportSender;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * A ShedLock job kept as it is, on the auto-configured {@code LockProvider}, next to a
 * starter job that shares its lock.
 */
public class SchedulerLockJobs {

	// tag::enable[]
	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10m")
	static class SchedulingConfiguration {

	}
	// end::enable[]

	private final ReportSender reports;

	SchedulerLockJobs(ReportSender reports) {
		this.reports = reports;
	}

	// tag::scheduler-lock[]
	@Scheduled(cron = "0 */15 * * * *")
	@SchedulerLock(name = "report", lockAtMostFor = "10m", lockAtLeastFor = "30s")
	public void sendReport() {
		this.reports.send();
	}

	// The same lock: a manual run never overlaps the scheduled one
	@ExclusiveJob(name = "report", holdAtLeast = "0s")
	public void sendReportNow() {
		this.reports.send();
	}
	// end::scheduler-lock[]

}
