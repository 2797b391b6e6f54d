/**
 * The simulated external points service.
 */
@NullMarked
package dev.lockstarter.sample.points;

import org.jspecify.annotations.NullMarked;
