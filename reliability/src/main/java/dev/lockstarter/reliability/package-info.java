/**
 * The reliability harness: worker processes run critical sections through this starter's
 * locks on every store while nemeses pause, kill and restart things and step and drift
 * the workers' wall clocks; an oracle Redis records every section, and a checker finds
 * two holders at once, lost updates, stale writes and locks that block forever.
 * Deliberately broken locks run as negative controls.
 */
@NullMarked
package dev.lockstarter.reliability;

import org.jspecify.annotations.NullMarked;
