package dev.lockstarter.docs.programmatic;

/**
 * The receipt of a payment or transfer.
 *
 * @param id its id
 */
public record Receipt(String id) {

}
