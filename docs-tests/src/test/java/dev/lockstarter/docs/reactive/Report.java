package dev.lockstarter.docs.reactive;

/**
 * A report.
 *
 * @param id its id
 * @param content its content
 */
public record Report(String id, String content) {

}
