package dev.lockstarter.docs.keys;

/**
 * An account.
 *
 * @param id its id
 */
public record Account(String id) {

}
