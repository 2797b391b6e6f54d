/**
 * Report exports, at most three at once per tenant across every instance: permits.
 */
@NullMarked
package dev.lockstarter.sample.export;

import org.jspecify.annotations.NullMarked;
