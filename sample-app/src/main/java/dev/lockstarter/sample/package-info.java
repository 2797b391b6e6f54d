/**
 * Sample application: user registration guarded by
 * {@link dev.lockstarter.annotation.ExclusiveRequest @ExclusiveRequest}.
 */
@NullMarked
package dev.lockstarter.sample;

import org.jspecify.annotations.NullMarked;
