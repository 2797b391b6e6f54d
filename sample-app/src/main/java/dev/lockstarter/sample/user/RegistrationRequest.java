package dev.lockstarter.sample.user;

import org.jspecify.annotations.Nullable;

/**
 * The body of a registration request, {@code {"userName": "alice"}}.
 *
 * @param userName the name to register, {@code null} when the body lacks it
 * @since 0.1.0
 */
public record RegistrationRequest(@Nullable String userName) {

}
