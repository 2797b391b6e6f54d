/**
 * The {@link dev.lockstarter.annotation.ExclusiveRequest} annotation.
 */
@NullMarked
package dev.lockstarter.annotation;

import org.jspecify.annotations.NullMarked;
