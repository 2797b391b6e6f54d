/**
 * The in-memory lock store, for single-instance applications and tests.
 */
@NullMarked
package dev.lockstarter.store.memory;

import org.jspecify.annotations.NullMarked;
