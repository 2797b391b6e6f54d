package dev.lockstarter.docs.migration;

/**
 * The invoice operations of the migration examples.
 */
public interface Invoices {

	void settle(String invoiceId);

	void sendReminder(String invoiceId);

	void archive(String invoiceId);

}
