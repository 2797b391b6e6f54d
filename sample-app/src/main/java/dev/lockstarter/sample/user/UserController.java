package dev.lockstarter.sample.user;

import java.net.URI;
import java.util.List;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * The user API: registration under a lock on the user name, and look-ups.
 *
 * @since 0.1.0
 */
@RestController
@RequestMapping("/api/users")
public class UserController {

	private final UserRegistrationService registrations;

	/**
	 * Create a new controller.
	 * @param registrations the registration service
	 */
	public UserController(UserRegistrationService registrations) {
		this.registrations = registrations;
	}

	/**
	 * Register a user. A name that is already registered is rejected before any lock is
	 * taken; a registration of a name whose registration is in flight gets the lock
	 * conflict response.
	 * @param request the registration request
	 * @return {@code 201 Created} with the user and its location
	 */
	@PostMapping
	public ResponseEntity<User> register(@RequestBody RegistrationRequest request) {
		String userName = userName(request);
		this.registrations.checkNameIsFree(userName);
		return created(this.registrations.registerExclusively(userName));
	}

	/**
	 * Find every user registered under a name.
	 * @param userName the name, in any Unicode normalization form
	 * @return the users, several if duplicates were registered
	 */
	@GetMapping
	public List<User> findByName(@RequestParam String userName) {
		return this.registrations.findByName(UserNames.lookupForm(userName));
	}

	/**
	 * Find a user by id.
	 * @param userId the id
	 * @return the user
	 */
	@GetMapping("/{userId}")
	public User findById(@PathVariable String userId) {
		return this.registrations.findById(userId);
	}

	static String userName(RegistrationRequest request) {
		return UserNames.normalize(request.userName());
	}

	static ResponseEntity<User> created(User user) {
		URI location = UriComponentsBuilder.fromPath("/api/users/{userId}").buildAndExpand(user.userId()).toUri();
		return ResponseEntity.created(location).body(user);
	}

}
