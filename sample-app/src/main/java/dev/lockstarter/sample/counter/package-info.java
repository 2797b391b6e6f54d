/**
 * Counters incremented by a read-modify-write, with and without a lock.
 */
@NullMarked
package dev.lockstarter.sample.counter;

import org.jspecify.annotations.NullMarked;
