/**
 * The lock annotations: {@link dev.lockstarter.annotation.ExclusiveRequest} (one call at
 * a time per key, with {@link dev.lockstarter.annotation.OnConflict what a conflicting
 * call does} and, for single-flight, {@link dev.lockstarter.annotation.OnHolderFailure
 * what a failure of the holder means to the callers that waited}) and
 * {@link dev.lockstarter.annotation.ExclusiveJob} (one instance runs each tick of a
 * scheduled job). The machinery that reads and applies them is in
 * {@code dev.lockstarter.interceptor}.
 */
@NullMarked
package dev.lockstarter.annotation;

import org.jspecify.annotations.NullMarked;
