package dev.lockstarter.docs.reactive;

/**
 * A registered user.
 *
 * @param id its id
 * @param name its name
 */
public record User(String id, String name) {

}
