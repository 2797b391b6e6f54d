/**
 * Lock key resolution: SpEL key expressions over a method's arguments, parsed once and
 * evaluated without access to types, constructors or beans.
 */
@NullMarked
package dev.lockstarter.key;

import org.jspecify.annotations.NullMarked;
