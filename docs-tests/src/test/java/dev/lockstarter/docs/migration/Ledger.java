package dev.lockstarter.docs.migration;

/**
 * A ledger that rejects writes carrying a fencing token lower than the last it saw.
 */
public interface Ledger {

	void closeHour(long fencingToken);

}
