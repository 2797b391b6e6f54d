/**
 * Clocks that store tests move by hand.
 */
@NullMarked
package dev.lockstarter.test.clock;

import org.jspecify.annotations.NullMarked;
