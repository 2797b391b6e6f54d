package dev.lockstarter.docs.gettingstarted;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The getting-started example: one locked endpoint.
 */
@RestController
public class RegistrationController {

	private final UserRegistry users;

	public RegistrationController(UserRegistry users) {
		this.users = users;
	}

	// tag::register[]
	@PostMapping("/api/users")
	@ExclusiveRequest(key = "#request.userName")
	public ResponseEntity<User> register(@RequestBody RegistrationRequest request) {
		// at most one call per user name runs at a time, across all instances
		User user = this.users.register(request.userName());
		return ResponseEntity.status(HttpStatus.CREATED).body(user);
	}
	// end::register[]

}
