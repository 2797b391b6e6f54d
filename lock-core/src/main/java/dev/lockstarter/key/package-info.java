/**
 * Lock keys: SpEL key expressions over a method's arguments, parsed once and evaluated
 * without access to types, constructors or beans, and
 * {@link dev.lockstarter.key.LockKeys}, which builds the same keys for programmatic
 * callers.
 */
@NullMarked
package dev.lockstarter.key;

import org.jspecify.annotations.NullMarked;
