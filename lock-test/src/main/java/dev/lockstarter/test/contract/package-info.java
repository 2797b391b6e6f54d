/**
 * The contract test kit that every {@link dev.lockstarter.store.LockStore} must pass, and
 * the reusable {@link dev.lockstarter.test.contract.ExclusionChecker} for mutual
 * exclusion under contention.
 */
@NullMarked
package dev.lockstarter.test.contract;

import org.jspecify.annotations.NullMarked;
