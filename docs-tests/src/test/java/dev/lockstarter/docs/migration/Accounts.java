package dev.lockstarter.docs.migration;

/**
 * The account operations of the migration examples.
 */
public interface Accounts {

	void credit(String accountId, long amount, long fencingToken);

	void move(String from, String to, long amount);

}
