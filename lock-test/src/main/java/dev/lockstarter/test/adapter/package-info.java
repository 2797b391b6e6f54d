/**
 * The conformance kit for the adapters on {@link dev.lockstarter.core.LockOperations}:
 * Spring Integration's {@code LockRegistry<DistributedLock>}, ShedLock's
 * {@code ExtensibleLockProvider} and {@link java.util.concurrent.locks.Lock}.
 * {@link dev.lockstarter.test.adapter.AdapterContractTests} runs every contract and a
 * multi-threaded fuzz test on a store, and
 * {@link dev.lockstarter.test.adapter.LostUpdateChecker} detects the lost updates and
 * overlapping critical sections of a lock that does not exclude.
 * {@link dev.lockstarter.test.adapter.ShedLockProviderSuiteTests} runs ShedLock's own
 * provider suite on the ShedLock adapter over a store.
 */
@NullMarked
package dev.lockstarter.test.adapter;

import org.jspecify.annotations.NullMarked;
