/**
 * The lock store SPI: the few atomic operations every store offers
 * ({@link dev.lockstarter.store.LockStore}), each keyed by a full store key and guarded
 * by an owner token, and one capability interface per optional ability: several keys in
 * one call, release notifications and acquisition from the release listener, kept
 * single-flight results, fencing tokens drawn on demand, and non-blocking variants. A
 * store replies with {@link dev.lockstarter.store.AcquireReply},
 * {@link dev.lockstarter.store.MultiKeyAcquireReply} or
 * {@link dev.lockstarter.store.AcquireReplyWithResult}.
 * <p>
 * Also here, for stores to share: the root {@link dev.lockstarter.store.LockException}
 * and {@link dev.lockstarter.store.LockStoreException}, the hashing of over-long keys
 * ({@link dev.lockstarter.store.HashedKeys}), the local register of release listeners
 * ({@link dev.lockstarter.store.ReleaseListeners}) and keys as they may be logged
 * ({@link dev.lockstarter.store.LogSafe}).
 */
@NullMarked
package dev.lockstarter.store;

import org.jspecify.annotations.NullMarked;
