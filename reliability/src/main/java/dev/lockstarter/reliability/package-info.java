/**
 * The reliability harness: worker processes run critical sections through this starter's
 * locks on a real Redis while nemeses pause, kill and restart things; an oracle Redis
 * records every section, and a checker finds two holders at once, lost updates, stale
 * writes and locks that block forever. Deliberately broken locks run as negative
 * controls.
 */
@NullMarked
package dev.lockstarter.reliability;

import org.jspecify.annotations.NullMarked;
