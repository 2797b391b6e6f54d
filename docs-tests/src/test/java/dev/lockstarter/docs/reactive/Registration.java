package dev.lockstarter.docs.reactive;

/**
 * The body of a registration request.
 *
 * @param userName the name to register
 */
public record Registration(String userName) {

}
