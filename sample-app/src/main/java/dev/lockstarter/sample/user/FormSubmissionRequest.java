package dev.lockstarter.sample.user;

import org.jspecify.annotations.Nullable;

/**
 * The body of a guarded form submission, {@code {"userName": "alice", "formToken":
 * "3f9c..."}}.
 *
 * @param userName the name to register, {@code null} when the body lacks it
 * @param formToken the token the page drew when it showed the form, {@code null} when the
 * body lacks it
 * @since 0.1.0
 */
public record FormSubmissionRequest(@Nullable String userName, @Nullable String formToken) {

}
