package dev.lockstarter.sample.user;

import java.util.regex.Pattern;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Registration from the demo page's guarded form: each rendered form carries a random
 * token, and {@link FormSubmissionService} accepts one submission per token within two
 * seconds.
 *
 * @since 0.1.0
 */
@RestController
@RequestMapping("/api/form/users")
public class FormSubmissionController {

	private static final Pattern FORM_TOKEN = Pattern.compile("[A-Za-z0-9_-]{16,64}");

	private final FormSubmissionService forms;

	/**
	 * Create a new controller.
	 * @param forms the guarded form submissions
	 */
	public FormSubmissionController(FormSubmissionService forms) {
		this.forms = forms;
	}

	/**
	 * Register a user from a guarded form.
	 * @param request the submission
	 * @return {@code 201 Created} with the user and its location
	 */
	@PostMapping
	public ResponseEntity<User> submit(@RequestBody FormSubmissionRequest request) {
		String formToken = request.formToken();
		if (formToken == null || !FORM_TOKEN.matcher(formToken).matches()) {
			throw new InvalidFormTokenException();
		}
		// No early name check here, unlike POST /api/users: a second click after the
		// first
		// registration finished must meet the form's lock, not the taken name
		String userName = UserNames.normalize(request.userName());
		return UserController.created(this.forms.submit(formToken, userName));
	}

}
