package dev.lockstarter.docs.programmatic;

/**
 * Charges accounts.
 */
public interface Payments {

	Receipt charge(String accountId, long fencingToken);

}
