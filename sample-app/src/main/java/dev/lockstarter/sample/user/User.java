package dev.lockstarter.sample.user;

/**
 * A registered user, as stored and as returned by the API.
 *
 * @param userId the id issued at registration
 * @param userName the name the user registered with
 * @param points the user's points balance
 * @since 0.1.0
 */
public record User(String userId, String userName, int points) {

}
