package dev.lockstarter.docs.convention;

/**
 * A registered user.
 *
 * @param name the user's name
 */
record User(String name) {

}
