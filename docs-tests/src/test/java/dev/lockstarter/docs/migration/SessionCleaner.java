package dev.lockstarter.docs.migration;

/**
 * Deletes expired sessions, for the migration examples.
 */
public interface SessionCleaner {

	void purgeExpired();

}
