/**
 * ShedLock's {@code LockProvider} on the starter's locks: a
 * {@link dev.lockstarter.shedlock.LockOperationsLockProvider} runs {@code @SchedulerLock}
 * and ShedLock's {@code LockingTaskExecutor} on any
 * {@link dev.lockstarter.core.LockOperations}.
 */
@NullMarked
package dev.lockstarter.shedlock;

import org.jspecify.annotations.NullMarked;
