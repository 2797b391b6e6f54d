package dev.lockstarter.docs.programmatic;

/**
 * Updates users.
 */
public interface UserService {

	String update(String id);

}
