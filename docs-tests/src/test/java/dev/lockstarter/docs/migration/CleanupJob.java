package dev.lockstarter.docs.migration;

import dev.lockstarter.annotation.ExclusiveJob;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job whose lock name, hold times and TTL are all defaults.
 */
@Component
public class CleanupJob {

	private final SessionCleaner sessions;

	CleanupJob(SessionCleaner sessions) {
		this.sessions = sessions;
	}

	// tag::defaults[]
	@Scheduled(fixedRate = 60_000)
	@ExclusiveJob
	public void purgeExpiredSessions() {
		this.sessions.purgeExpired();
	}
	// end::defaults[]

}
