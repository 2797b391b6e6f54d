/**
 * Micrometer meters of locking, on by default when a {@code MeterRegistry} is present.
 */
@NullMarked
package dev.lockstarter.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
