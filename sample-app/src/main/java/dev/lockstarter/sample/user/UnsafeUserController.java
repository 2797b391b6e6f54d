package dev.lockstarter.sample.user;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Registration without a lock, to show the problem the starter solves: concurrent
 * registrations of one name all pass the name check and each stores a user.
 *
 * @since 0.1.0
 */
@RestController
@RequestMapping("/api/unsafe/users")
public class UnsafeUserController {

	private final UserRegistrationService registrations;

	/**
	 * Create a new controller.
	 * @param registrations the registration service
	 */
	public UnsafeUserController(UserRegistrationService registrations) {
		this.registrations = registrations;
	}

	/**
	 * Register a user without a lock.
	 * @param request the registration request
	 * @return {@code 201 Created} with the user and its location
	 */
	@PostMapping
	public ResponseEntity<User> register(@RequestBody RegistrationRequest request) {
		String userName = UserController.userName(request);
		return UserController.created(this.registrations.register(userName));
	}

}
