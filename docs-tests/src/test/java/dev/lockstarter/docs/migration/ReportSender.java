package dev.lockstarter.docs.migration;

/**
 * Sends the periodic report of the migration examples.
 */
public interface ReportSender {

	void send();

}
