/**
 * Auto-configuration of the adapters to the peers' lock APIs: Spring Integration's
 * {@code LockRegistry} and ShedLock's {@code LockProvider}.
 */
@NullMarked
package dev.lockstarter.autoconfigure.adapter;

import org.jspecify.annotations.NullMarked;
