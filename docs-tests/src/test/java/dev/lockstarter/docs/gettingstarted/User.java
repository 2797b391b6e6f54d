package dev.lockstarter.docs.gettingstarted;

/**
 * A registered user.
 *
 * @param name the user name
 */
public record User(String name) {

}
