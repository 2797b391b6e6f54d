/**
 * An expensive, paid computation whose simultaneous identical requests share one run.
 */
@NullMarked
package dev.lockstarter.sample.sum;

import org.jspecify.annotations.NullMarked;
