/**
 * Micrometer meters of locking, on by default when a {@code MeterRegistry} is present.
 */
@Internal
@NullMarked
package dev.lockstarter.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;

import dev.lockstarter.core.Internal;
