package dev.lockstarter.sample.user;

import java.util.List;
import java.util.UUID;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.sample.points.PointsService;
import org.springframework.stereotype.Service;
import org.springframework.util.Assert;

/**
 * Registers users: checks that the name is free, issues a new id, grants the registration
 * bonus through the {@link PointsService external points service}, and stores the user.
 * <p>
 * Between the check and the store lies the points service's latency: two registrations of
 * one name that overlap both pass the check and both store a user.
 * {@link #registerExclusively(String)} closes that window with a lock on the user name,
 * held across every instance that shares the lock store; {@link #register(String)} leaves
 * it open to show what goes wrong without it.
 *
 * @since 0.1.0
 */
@Service
public class UserRegistrationService {

	/**
	 * Points granted to every new user.
	 */
	public static final int BONUS_POINTS = 100;

	private final UserRepository users;

	private final PointsService points;

	/**
	 * Create a new service.
	 * @param users the user repository
	 * @param points the points service that grants the registration bonus
	 */
	public UserRegistrationService(UserRepository users, PointsService points) {
		this.users = users;
		this.points = points;
	}

	/**
	 * Check that a name is free, without taking a lock. Rejects a registration of a known
	 * name early; it does not make the name safe to register, since another registration
	 * may store the name right after this check.
	 * @param userName the name to check
	 * @throws UserAlreadyRegisteredException if the name is taken
	 */
	public void checkNameIsFree(String userName) {
		if (this.users.existsByName(userName)) {
			throw new UserAlreadyRegisteredException(userName);
		}
	}

	/**
	 * Register a user while holding the lock on its name. A concurrent registration of
	 * the same name is rejected with a
	 * {@link dev.lockstarter.core.LockConflictException}. The name is checked again
	 * inside the lock: a request that checked it before an earlier registration stored
	 * its user, and locked after that one released, must not store a second user.
	 * @param userName the name to register
	 * @return the registered user
	 * @throws UserAlreadyRegisteredException if the name is taken
	 */
	@ExclusiveRequest(name = "user-registration", key = "#userName")
	public User registerExclusively(String userName) {
		return register(userName);
	}

	/**
	 * Register a user without a lock: concurrent registrations of one name can all
	 * succeed.
	 * @param userName the name to register
	 * @return the registered user
	 * @throws UserAlreadyRegisteredException if the name is taken
	 */
	public User register(String userName) {
		Assert.hasText(userName, "'userName' must not be empty");
		checkNameIsFree(userName);
		String userId = UUID.randomUUID().toString();
		int balance = this.points.addPoints(userId, BONUS_POINTS);
		User user = new User(userId, userName, balance);
		this.users.save(user);
		return user;
	}

	/**
	 * Find a user by id.
	 * @param userId the id
	 * @return the user
	 * @throws UserNotFoundException if no user has the id
	 */
	public User findById(String userId) {
		return this.users.findById(userId).orElseThrow(() -> new UserNotFoundException(userId));
	}

	/**
	 * Find every user registered under a name.
	 * @param userName the name
	 * @return the users, in the order they were stored; more than one after duplicate
	 * registrations
	 */
	public List<User> findByName(String userName) {
		return this.users.findByName(userName);
	}

}
