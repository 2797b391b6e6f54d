package dev.lockstarter.sample.user;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.stereotype.Service;

/**
 * The first source article's guard against a mashed submit button: the lock is keyed by
 * the token of one rendered form, and kept for at least two seconds ({@code holdAtLeast},
 * {@code sample.form.hold-at-least}). A second submission of the same form within those
 * two seconds is rejected even when the first one has already finished, which a lock on
 * the user name alone does not do: it is free again as soon as the first registration
 * returns.
 * <p>
 * The registration itself still runs under the lock on the user name, so two different
 * forms (two devices) registering one name are still excluded from each other.
 *
 * @since 0.1.0
 */
@Service
public class FormSubmissionService {

	private final UserRegistrationService registrations;

	/**
	 * Create a new service.
	 * @param registrations the registration service
	 */
	public FormSubmissionService(UserRegistrationService registrations) {
		this.registrations = registrations;
	}

	/**
	 * Register a user from a form, at most once per form within two seconds.
	 * @param formToken the form's token
	 * @param userName the name to register, normalized
	 * @return the registered user
	 * @throws dev.lockstarter.core.LockConflictException if the same form was submitted
	 * less than two seconds ago, or the name is being registered right now
	 * @throws UserAlreadyRegisteredException if the name is taken
	 */
	@ExclusiveRequest(name = "form-submission", key = "#formToken", holdAtLeast = "${sample.form.hold-at-least:2s}")
	public User submit(String formToken, String userName) {
		return this.registrations.registerExclusively(userName);
	}

}
