package dev.lockstarter.sample.user;

import java.util.List;
import java.util.Optional;

/**
 * Stores users. Names are not unique here: the repository keeps every user it is given,
 * so that duplicate registrations stay visible.
 *
 * @since 0.1.0
 * @see InMemoryUserRepository
 * @see RedisUserRepository
 */
public interface UserRepository {

	/**
	 * Store a user.
	 * @param user the user to store
	 */
	void save(User user);

	/**
	 * Find a user by id.
	 * @param userId the id
	 * @return the user, or empty if none has that id
	 */
	Optional<User> findById(String userId);

	/**
	 * Find every user stored under a name, in the order they were stored.
	 * @param userName the name
	 * @return the users, empty if none
	 */
	List<User> findByName(String userName);

	/**
	 * Return whether at least one user is stored under a name.
	 * @param userName the name
	 * @return {@code true} if the name is taken
	 */
	boolean existsByName(String userName);

}
