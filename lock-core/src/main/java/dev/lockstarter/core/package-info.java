/**
 * Programmatic locking API: {@link dev.lockstarter.core.LockOperations}, leases, and the
 * exception hierarchy rooted at {@link dev.lockstarter.store.LockException}.
 */
@NullMarked
package dev.lockstarter.core;

import org.jspecify.annotations.NullMarked;
