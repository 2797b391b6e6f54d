package dev.lockstarter.docs.keys;

/**
 * A registered user.
 *
 * @param name the user name
 */
public record User(String name) {

}
