/**
 * Serialization of the results that single-flight callers share through the lock store.
 */
@NullMarked
package dev.lockstarter.result;

import org.jspecify.annotations.NullMarked;
