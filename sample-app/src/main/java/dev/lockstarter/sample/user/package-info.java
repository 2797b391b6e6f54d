/**
 * User registration: the API, the registration flow and the user repositories.
 */
@NullMarked
package dev.lockstarter.sample.user;

import org.jspecify.annotations.NullMarked;
