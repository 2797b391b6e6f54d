/**
 * Spring Integration's {@code LockRegistry} on the starter's locks: a
 * {@link dev.lockstarter.integration.LockOperationsLockRegistry} gives
 * {@code DistributedLock}s over any {@link dev.lockstarter.core.LockOperations}, so that
 * Spring Integration's leader election, aggregators and idempotent receivers lock in any
 * of the starter's stores.
 */
@NullMarked
package dev.lockstarter.integration;

import org.jspecify.annotations.NullMarked;
