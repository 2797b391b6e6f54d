package dev.lockstarter.docs.keys;

/**
 * The body of a registration request.
 *
 * @param userName the name to register
 */
public record RegistrationRequest(String userName) {

}
