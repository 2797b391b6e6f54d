package dev.lockstarter.docs.programmatic;

/**
 * Changes accounts, passing the lock's fencing token to the storage layer.
 */
public interface Accounts {

	void update(String id, long amount, long fencingToken);

	void move(String from, String to, long amount, long fromFencingToken, long toFencingToken);

	Receipt transfer(String from, String to, long amount);

}
