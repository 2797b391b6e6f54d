/**
 * Actuator support for distributed request locking: the {@code locks} endpoint and the
 * {@code lockStore} health indicator.
 */
@Internal
@NullMarked
package dev.lockstarter.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;

import dev.lockstarter.core.Internal;
