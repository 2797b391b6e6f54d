package dev.lockstarter.docs.jobs;

/**
 * Sends reports.
 */
public interface Reports {

	void sendDaily();

	void sendInvoices();

}
