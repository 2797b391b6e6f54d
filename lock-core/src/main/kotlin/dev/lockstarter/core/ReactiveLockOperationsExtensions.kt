/*
 * Coroutine extensions of the reactive lock API.
 */
package dev.lockstarter.core

import dev.lockstarter.store.LockStoreException
import dev.lockstarter.store.LogSafe
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.reactor.ReactorContext
import kotlinx.coroutines.reactor.awaitSingleOrNull
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext
import org.apache.commons.logging.LogFactory
import reactor.core.publisher.Mono
import java.time.Duration
import kotlin.coroutines.resumeWithException

private val logger = LogFactory.getLog(ReactiveLockOperations::class.java)

/**
 * Run [block] while holding the lock on [key], suspending (never blocking a thread) while
 * the lock is acquired and released.
 *
 * The lock is acquired as [ReactiveLockOperations.acquire] does: waiting up to the
 * options' wait time, woken by the store's release notifications. It is renewed while
 * [block] runs, if the options ask for renewal, and released when [block] returns, throws
 * or is cancelled. A failure to release is logged, and the lock then expires at the end
 * of its time-to-live; it never replaces the outcome of [block].
 *
 * ```
 * val user = locks.withLock("user:$userName", LockOptions.ttl(Duration.ofSeconds(10))) {
 *     users.register(userName)
 * }
 * ```
 *
 * @throws LockConflictException if the lock is held by someone else after the wait
 * @throws LockStoreException if the store fails to answer the acquisition
 * @since 0.1.0
 */
suspend fun <T> ReactiveLockOperations.withLock(key: String, options: LockOptions, block: suspend (Lease) -> T): T =
	withLease(awaitLease(acquire(key, options)), block)

/**
 * Run [block] while holding the lock on [key] for at most [ttl], without waiting for it.
 * See [withLock].
 *
 * @throws LockConflictException if the lock is held by someone else
 * @throws LockStoreException if the store fails to answer the acquisition
 * @since 0.1.0
 */
suspend fun <T> ReactiveLockOperations.withLock(key: String, ttl: Duration, block: suspend (Lease) -> T): T =
	withLock(key, LockOptions.ttl(ttl), block)

/**
 * Run [block] while holding the locks on all [keys], acquired together: all of them or
 * none, as [ReactiveLockOperations.acquire] with several keys does. See [withLock].
 *
 * @throws LockConflictException if one of the locks is held by someone else after the
 * wait
 * @throws LockStoreException if the store fails to answer the acquisition
 * @since 0.1.0
 */
suspend fun <T> ReactiveLockOperations.withLock(keys: Collection<String>, options: LockOptions,
		block: suspend (Lease) -> T): T =
	withLease(awaitLease(acquire(keys, options)), block)

/**
 * Run [block] while holding the locks on all [keys] for at most [ttl], without waiting.
 * See [withLock].
 *
 * @throws LockConflictException if one of the locks is held by someone else
 * @throws LockStoreException if the store fails to answer the acquisition
 * @since 0.1.0
 */
suspend fun <T> ReactiveLockOperations.withLock(keys: Collection<String>, ttl: Duration,
		block: suspend (Lease) -> T): T =
	withLock(keys, LockOptions.ttl(ttl), block)

/**
 * Await the lease of an acquisition, as `awaitSingle` would (an empty one fails with
 * `NoSuchElementException`), but release a lease granted just as the calling coroutine is
 * cancelled: the continuation then drops the lease, and nothing else would release it.
 */
private suspend fun ReactiveLockOperations.awaitLease(acquisition: Mono<Lease>): Lease =
	suspendCancellableCoroutine { continuation ->
		val reactorContext = continuation.context[ReactorContext]?.context
		val single = acquisition.single()
		val subscription = (if (reactorContext != null) single.contextWrite(reactorContext) else single)
			.subscribe({ lease ->
				continuation.resume(lease) { _, dropped, _ -> releaseQuietly(dropped) }
			}, continuation::resumeWithException)
		continuation.invokeOnCancellation { subscription.dispose() }
	}

private fun ReactiveLockOperations.releaseQuietly(lease: Lease) {
	release(lease).subscribe(null) { ex -> logReleaseFailure(lease, ex) }
}

private fun logReleaseFailure(lease: Lease, ex: Throwable) {
	logger.warn("Failed to release lock '${LogSafe.key(lease.key())}'; it expires at the end of its time-to-live", ex)
}

private suspend fun <T> ReactiveLockOperations.withLease(lease: Lease, block: suspend (Lease) -> T): T {
	try {
		return block(lease)
	}
	finally {
		// Released even when the caller is cancelled, which is when it matters most
		withContext(NonCancellable) {
			try {
				release(lease).awaitSingleOrNull()
			}
			catch (ex: LockStoreException) {
				logReleaseFailure(lease, ex)
			}
		}
	}
}
