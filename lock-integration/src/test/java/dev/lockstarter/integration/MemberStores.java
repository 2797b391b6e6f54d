package dev.lockstarter.integration;

import dev.lockstarter.store.LockStore;

/**
 * Opens the lock store of one member of a leader election, on a client of its own, as
 * each application instance has one. Implementations have a no-argument constructor
 * (public, outside this package), so that a member in a JVM of its own
 * ({@link ElectionMemberMain}) is given the class's name and makes one.
 */
public interface MemberStores {

	/**
	 * Open a store on the server at an address.
	 * @param address the server's address, as the test class gives it
	 * @return the store, and how to close it and its client
	 */
	Opened open(String address);

	/**
	 * An opened store.
	 *
	 * @param store the store
	 * @param resources closes the store and its client
	 */
	record Opened(LockStore store, AutoCloseable resources) {
	}

}
