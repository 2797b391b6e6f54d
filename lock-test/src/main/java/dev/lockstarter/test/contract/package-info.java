/**
 * The contract test kit that every {@link dev.lockstarter.store.LockStore} must pass:
 * {@link dev.lockstarter.test.contract.LockStoreContractTests} for the store itself,
 * {@link dev.lockstarter.test.contract.LockOperationsContractTests} and
 * {@link dev.lockstarter.test.contract.ReactiveLockOperationsContractTests} for the
 * templates on it, and the reusable
 * {@link dev.lockstarter.test.contract.ExclusionChecker} for mutual exclusion under
 * contention, {@link dev.lockstarter.test.contract.PermitsChecker} for the holders of
 * permits and {@link dev.lockstarter.test.contract.ReadersWriterChecker} for readers and
 * writers. The suites' tests live in package-private interfaces, one per topic, that
 * reach the store or the templates through a fixture created before each test.
 */
@NullMarked
package dev.lockstarter.test.contract;

import org.jspecify.annotations.NullMarked;
