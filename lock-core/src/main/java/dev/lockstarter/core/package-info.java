/**
 * Programmatic locking: the API applications call, and the engine behind it.
 * <p>
 * The API: {@link dev.lockstarter.core.LockOperations} and
 * {@link dev.lockstarter.core.ReactiveLockOperations} with their implementations
 * {@link dev.lockstarter.core.LockTemplate} and
 * {@link dev.lockstarter.core.ReactiveLockTemplate};
 * {@link dev.lockstarter.core.DetachedLockOperations} for locks held by owners outside
 * the JVM; {@link dev.lockstarter.core.LockOptions}; the outcomes a caller gets
 * ({@link dev.lockstarter.core.LockAttempt},
 * {@link dev.lockstarter.core.LockAttemptWithResult}) and a listener is told of
 * ({@link dev.lockstarter.core.FinishedAttempt},
 * {@link dev.lockstarter.core.LockListener}, {@link dev.lockstarter.core.LockLostEvent});
 * leases ({@link dev.lockstarter.core.Lease}, {@link dev.lockstarter.core.DetachedLease},
 * {@link dev.lockstarter.core.HeldLock}); and the exceptions of lock use, under
 * {@link dev.lockstarter.store.LockException}.
 * <p>
 * The engine, package-private: one acquisition with its owner token and tries (single and
 * multi-key, rollback), how one key is asked for and what a grant becomes; the wait
 * schedule shared by the blocking and the reactive waiter; the release handoff; the
 * events (observations, listeners, held locks, hold times); the store's capabilities,
 * resolved once per template; lease renewal and the cleanup of failed acquisitions.
 */
@NullMarked
package dev.lockstarter.core;

import org.jspecify.annotations.NullMarked;
