package dev.lockstarter.docs.gettingstarted;

/**
 * The body of a registration request.
 *
 * @param userName the name to register
 */
public record RegistrationRequest(String userName) {

}
