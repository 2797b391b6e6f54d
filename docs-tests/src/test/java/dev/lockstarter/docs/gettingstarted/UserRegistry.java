package dev.lockstarter.docs.gettingstarted;

/**
 * Stores users.
 */
public interface UserRegistry {

	User register(String userName);

}
