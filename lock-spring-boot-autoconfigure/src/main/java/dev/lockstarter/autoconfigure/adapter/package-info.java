/**
 * Auto-configuration of the adapters to the peers' lock APIs: Spring Integration's
 * {@code LockRegistry} and ShedLock's {@code LockProvider}.
 */
@Internal
@NullMarked
package dev.lockstarter.autoconfigure.adapter;

import org.jspecify.annotations.NullMarked;

import dev.lockstarter.core.Internal;
