/**
 * A scheduled report that runs once per tick across every instance, with
 * {@code @ExclusiveJob}.
 */
@NullMarked
package dev.lockstarter.sample.report;

import org.jspecify.annotations.NullMarked;
