package dev.lockstarter.docs.keys;

/**
 * Stores users.
 */
public interface Users {

	User save(User user);

}
