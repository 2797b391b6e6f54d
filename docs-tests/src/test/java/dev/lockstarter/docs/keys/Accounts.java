package dev.lockstarter.docs.keys;

/**
 * Changes account balances.
 */
public interface Accounts {

	void move(Account from, Account to, long amount);

	void credit(String id, long amount);

	void close(String id);

}
