package dev.lockstarter.docs.convention;

import dev.lockstarter.annotation.ExclusiveRequest;

/**
 * The example of docs-tests/README.md: a region that a page shows through a snippet marker.
 */
class RegistrationService {

	private final UserRepository users;

	RegistrationService(UserRepository users) {
		this.users = users;
	}

	// tag::register-user[]
	@ExclusiveRequest(key = "#userName")
	public User register(String userName) {
		return this.users.findByName(userName).orElseGet(() -> this.users.save(new User(userName)));
	}
	// end::register-user[]

}
