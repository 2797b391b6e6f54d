package dev.lockstarter.docs.keys;

import java.text.Normalizer;
import java.util.regex.Pattern;

import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * Puts the user name in its canonical form before the locked method sees it.
 */
@RestController
public class UserRegistrationController {

	private static final Pattern ALLOWED_NAME = Pattern.compile("[\\p{L}\\p{Nd}._-]{1,30}");

	private final RegistrationService registrations;

	public UserRegistrationController(RegistrationService registrations) {
		this.registrations = registrations;
	}

	// tag::normalize[]
	@PostMapping("/api/users")
	public User register(@RequestBody RegistrationRequest request) {
		String userName = Normalizer.normalize(request.userName(), Normalizer.Form.NFC);
		if (!ALLOWED_NAME.matcher(userName).matches()) {
			// answered with a 400 that states the rule, without repeating the input
			throw new InvalidUserNameException("1 to 30 letters, digits, '.', '_' or '-'");
		}
		// another bean, called through its proxy: @ExclusiveRequest(key = "#userName")
		return this.registrations.register(userName);
	}
	// end::normalize[]

}
