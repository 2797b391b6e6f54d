package dev.lockstarter.autoconfigure.actuate;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import dev.lockstarter.autoconfigure.actuate.LockHolderOperations.ForceReleaseDescriptor;
import dev.lockstarter.autoconfigure.actuate.LockHolderOperations.HoldersDescriptor;
import dev.lockstarter.core.HeldLock;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.interceptor.ExclusiveJobAttribute;
import dev.lockstarter.interceptor.ExclusiveRequestAttribute;
import dev.lockstarter.interceptor.LockDeclaration;
import dev.lockstarter.interceptor.ResultSharing;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.util.Assert;

/**
 * {@link Endpoint @Endpoint} that describes the application's locks: the lock store and
 * its configuration, the {@code @ExclusiveRequest}, {@code @ExclusiveJob} and
 * {@code @IdempotentRequest} methods with their effective settings, and the locks this
 * instance holds now; on a store that can list them, the holders of the keys under a
 * prefix, whichever instance holds them, and a force-release of a key. The endpoint's
 * access is read-only by default: the force-release needs
 * {@code management.endpoint.locks.access=unrestricted}.
 * <p>
 * Durations are ISO-8601 strings ({@code "PT30S"}), to the millisecond. Owner tokens are
 * never shown, and neither are store credentials. The key of a held lock is built from
 * method arguments, such as a user name, so it is shown only with
 * {@code lock.actuator.show-keys=true}.
 *
 * @since 0.1.0
 */
@Endpoint(id = "locks", defaultAccess = Access.READ_ONLY)
public class LocksEndpoint {

	private final Supplier<StoreDescriptor> store;

	private final Supplier<List<ExclusiveRequestDescriptor>> exclusiveRequests;

	private final Supplier<List<IdempotentRequestDescriptor>> idempotentRequests;

	private final Supplier<List<ExclusiveJobDescriptor>> exclusiveJobs;

	private final Supplier<List<HeldLock>> heldLocks;

	private final boolean showKeys;

	private final LockHolderOperations holders;

	/**
	 * Create an endpoint. The suppliers are called on every read.
	 * @param store the description of the lock store
	 * @param exclusiveRequests the {@code @ExclusiveRequest} methods
	 * @param idempotentRequests the {@code @IdempotentRequest} handler methods
	 * @param heldLocks the locks this instance holds now
	 * @param showKeys whether to show the keys of held locks
	 */
	LocksEndpoint(Supplier<StoreDescriptor> store, Supplier<List<ExclusiveRequestDescriptor>> exclusiveRequests,
			Supplier<List<IdempotentRequestDescriptor>> idempotentRequests, Supplier<List<HeldLock>> heldLocks,
			boolean showKeys) {
		this(store, exclusiveRequests, idempotentRequests, List::of, heldLocks, showKeys, LockHolderOperations.none());
	}

	/**
	 * Create an endpoint. The suppliers are called on every read.
	 * @param store the description of the lock store
	 * @param exclusiveRequests the {@code @ExclusiveRequest} methods
	 * @param idempotentRequests the {@code @IdempotentRequest} handler methods
	 * @param exclusiveJobs the {@code @ExclusiveJob} methods
	 * @param heldLocks the locks this instance holds now
	 * @param showKeys whether to show the keys of held locks
	 * @param holders the operations on the store's holders
	 */
	LocksEndpoint(Supplier<StoreDescriptor> store, Supplier<List<ExclusiveRequestDescriptor>> exclusiveRequests,
			Supplier<List<IdempotentRequestDescriptor>> idempotentRequests,
			Supplier<List<ExclusiveJobDescriptor>> exclusiveJobs, Supplier<List<HeldLock>> heldLocks, boolean showKeys,
			LockHolderOperations holders) {
		Assert.notNull(store, "'store' must not be null");
		Assert.notNull(exclusiveRequests, "'exclusiveRequests' must not be null");
		Assert.notNull(idempotentRequests, "'idempotentRequests' must not be null");
		Assert.notNull(exclusiveJobs, "'exclusiveJobs' must not be null");
		Assert.notNull(heldLocks, "'heldLocks' must not be null");
		this.store = store;
		this.exclusiveRequests = exclusiveRequests;
		this.idempotentRequests = idempotentRequests;
		this.exclusiveJobs = exclusiveJobs;
		this.heldLocks = heldLocks;
		this.showKeys = showKeys;
		this.holders = holders;
	}

	/**
	 * Describe the lock store, the declared lock methods and the locks held now.
	 * @return the description
	 */
	@ReadOperation
	public LocksDescriptor locks() {
		List<LeaseDescriptor> leases = this.heldLocks.get()
			.stream()
			.map((lock) -> LeaseDescriptor.of(lock, this.showKeys))
			.toList();
		return new LocksDescriptor(this.store.get(), this.exclusiveRequests.get(), this.idempotentRequests.get(),
				this.exclusiveJobs.get(), leases);
	}

	/**
	 * List the locks held now, by any instance, on the keys that start with a prefix, in
	 * key order: {@code GET /actuator/locks/{prefix}}.
	 * @param prefix the start of the keys, without the store's key prefix; the path's
	 * segments joined by {@code /}
	 * @param limit the most holders to list, 100 by default, at most 1000
	 * @return the holders
	 */
	@ReadOperation
	public HoldersDescriptor holders(@Selector(match = Match.ALL_REMAINING) String[] prefix, @Nullable Integer limit) {
		return this.holders.find(String.join("/", prefix), limit);
	}

	/**
	 * Delete the lock on a key: {@code DELETE /actuator/locks/{key}}, whoever holds it,
	 * or, with {@code ?owner=}, only if the holder listed with that owner fingerprint
	 * still holds it, so that a lock taken since the listing is left alone. Allowed only
	 * when the endpoint's access is unrestricted
	 * ({@code management.endpoint.locks.access=unrestricted}); audited.
	 * @param key the key, without the store's key prefix; the path's segments joined by
	 * {@code /}
	 * @param owner the owner fingerprint of the holder to free, as listed, or
	 * {@code null} for whoever holds the key
	 * @param securityContext the caller's security context, which names the operator
	 * @return whether the key was held (by that holder) and is now free
	 */
	@DeleteOperation
	public ForceReleaseDescriptor forceRelease(@Selector(match = Match.ALL_REMAINING) String[] key,
			@Nullable String owner, SecurityContext securityContext) {
		return this.holders.forceRelease(String.join("/", key), owner, securityContext);
	}

	static String format(Duration duration) {
		return duration.truncatedTo(ChronoUnit.MILLIS).toString();
	}

	static @Nullable String formatOrNull(@Nullable Duration duration) {
		return (duration != null) ? format(duration) : null;
	}

	/**
	 * Description of the application's locks.
	 *
	 * @param store the lock store
	 * @param exclusiveRequests the {@code @ExclusiveRequest} methods of the beans created
	 * so far, sorted by lock name
	 * @param idempotentRequests the {@code @IdempotentRequest} handler methods
	 * @param exclusiveJobs the {@code @ExclusiveJob} methods of the beans created so far,
	 * sorted by lock name
	 * @param leases the locks this instance holds now, the longest held first
	 */
	public record LocksDescriptor(StoreDescriptor store, List<ExclusiveRequestDescriptor> exclusiveRequests,
			List<IdempotentRequestDescriptor> idempotentRequests, List<ExclusiveJobDescriptor> exclusiveJobs,
			List<LeaseDescriptor> leases) implements OperationResponseBody {

	}

	/**
	 * Description of the lock store.
	 *
	 * @param kind the kind of store, as in meters: {@code redis}, {@code memcached},
	 * {@code dynamodb} or {@code memory}
	 * @param type the store's class
	 * @param settings the store's configuration, without credentials; empty for a store
	 * the application defines itself
	 */
	public record StoreDescriptor(String kind, String type, Map<String, Object> settings) {

	}

	/**
	 * Description of an {@code @ExclusiveRequest} method, with the configured defaults
	 * applied.
	 *
	 * @param name the lock name
	 * @param method the method, as {@code ClassName.method(ParamType, ...)}
	 * @param keys the key expressions; empty when one lock guards every call
	 * @param ttl the lock's time-to-live
	 * @param waitTime how long a call waits for a held lock
	 * @param retries the number of fixed-interval retries, used instead of the wait time
	 * when positive
	 * @param retryInterval the pause before each retry, or {@code null} without retries
	 * @param holdAtLeast the minimum hold time
	 * @param renew whether the lock is renewed while the method runs
	 * @param maxHold the longest renewed hold, or {@code null} for no limit
	 * @param onConflict what a call does when another holds its key: {@code REJECT} or
	 * {@code SHARE_RESULT}
	 * @param conflictStatus the HTTP status of a rejected call
	 * @param resultSharing how the result is shared, or {@code null} unless
	 * {@code onConflict} is {@code SHARE_RESULT}
	 * @param kind the kind of lock: {@code mutex}, {@code permits(N)}, {@code read} or
	 * {@code write}
	 */
	public record ExclusiveRequestDescriptor(String name, String method, List<String> keys, String ttl, String waitTime,
			int retries, @Nullable String retryInterval, String holdAtLeast, boolean renew, @Nullable String maxHold,
			OnConflict onConflict, int conflictStatus, @Nullable ResultSharingDescriptor resultSharing, String kind) {

		static ExclusiveRequestDescriptor of(LockDeclaration<ExclusiveRequestAttribute> declaration,
				LockOptions defaults, int defaultConflictStatus, Duration defaultResultTtl) {
			ExclusiveRequestAttribute attribute = declaration.attribute();
			ResultSharing sharing = attribute.resultSharing();
			LockOptions options = (sharing != null) ? attribute.sharedResultOptions(defaults)
					: attribute.options(defaults);
			int conflictStatus = (attribute.conflictStatus() != 0) ? attribute.conflictStatus() : defaultConflictStatus;
			return new ExclusiveRequestDescriptor(attribute.name(), declaration.describeMethod(),
					attribute.keyResolver().expressions(), format(options.getTtl()), format(options.getWaitTime()),
					options.getRetries(), (options.getRetries() > 0) ? format(options.getRetryInterval()) : null,
					format(options.getHoldAtLeast()), options.isRenew(), formatOrNull(options.getMaxHold()),
					(sharing != null) ? OnConflict.SHARE_RESULT : OnConflict.REJECT, conflictStatus,
					(sharing != null) ? ResultSharingDescriptor.of(sharing, defaultResultTtl) : null,
					attribute.kind().toString());
		}

	}

	/**
	 * Description of how a single-flight method shares its result.
	 *
	 * @param resultTtl how long the result is kept for the callers that waited
	 * @param onHolderFailure what the waiting callers get when the holder throws:
	 * {@code SHARE_FAILURE} or {@code TAKE_OVER}
	 * @param resultType the type the result is shared as
	 */
	public record ResultSharingDescriptor(String resultTtl, OnHolderFailure onHolderFailure, String resultType) {

		static ResultSharingDescriptor of(ResultSharing sharing, Duration defaultResultTtl) {
			Duration resultTtl = (sharing.resultTtl() != null) ? sharing.resultTtl() : defaultResultTtl;
			return new ResultSharingDescriptor(format(resultTtl),
					sharing.takeOverOnFailure() ? OnHolderFailure.TAKE_OVER : OnHolderFailure.SHARE_FAILURE,
					sharing.resultType().getTypeName());
		}

	}

	/**
	 * Description of an {@code @IdempotentRequest} handler method, with the configured
	 * defaults applied.
	 *
	 * @param name the name of the lock held while a request runs
	 * @param handler the handler method, as {@code ClassName.method(ParamType, ...)}
	 * @param mappings the handler's request mappings, such as
	 * {@code "POST /api/payments"}
	 * @param keyHeader the request header that carries the idempotency key
	 * @param required whether a request without the header is rejected
	 * @param retention how long a response is kept for replays
	 * @param ttl the time-to-live of the lock held while a request runs
	 * @param renew whether that lock is renewed while the request runs
	 * @param maxHold the longest renewed hold, or {@code null} for no limit
	 * @param conflictStatus the HTTP status of a request whose key is in use by a request
	 * in progress
	 */
	public record IdempotentRequestDescriptor(String name, String handler, List<String> mappings, String keyHeader,
			boolean required, String retention, String ttl, boolean renew, @Nullable String maxHold,
			int conflictStatus) {

	}

	/**
	 * Description of an {@code @ExclusiveJob} method, with the configured defaults
	 * applied.
	 *
	 * @param name the lock name, which is also the lock's key
	 * @param method the method, as {@code ClassName.method(ParamType, ...)}
	 * @param schedulePeriod the shortest period of the method's {@code @Scheduled}, or
	 * {@code null} if it has no periodic schedule
	 * @param holdAtLeast the minimum hold time after the lock was taken
	 * @param ttl the lock's time-to-live
	 * @param renew whether the lock is renewed while the job runs
	 * @param maxHold the longest renewed hold, or {@code null} for no limit
	 * @param kind the kind of lock: {@code mutex} or {@code permits(N)}
	 */
	public record ExclusiveJobDescriptor(String name, String method, @Nullable String schedulePeriod,
			String holdAtLeast, String ttl, boolean renew, @Nullable String maxHold, String kind) {

		static ExclusiveJobDescriptor of(LockDeclaration<ExclusiveJobAttribute> declaration, LockOptions defaults) {
			ExclusiveJobAttribute attribute = declaration.attribute();
			LockOptions options = attribute.options(defaults);
			return new ExclusiveJobDescriptor(attribute.name(), declaration.describeMethod(),
					formatOrNull(attribute.schedulePeriod()), format(options.getHoldAtLeast()),
					format(options.getTtl()), options.isRenew(), formatOrNull(options.getMaxHold()),
					attribute.kind().toString());
		}

	}

	/**
	 * Description of a lock this instance holds.
	 *
	 * @param name the lock name
	 * @param key the lock key, or {@code null} unless {@code lock.actuator.show-keys} is
	 * set
	 * @param acquiredAt when the lock was acquired, by this instance's clock
	 * @param age how long the lock has been held
	 * @param timeToExpiry the time left before the lock expires unless renewed
	 * @param kind the kind of lock: {@code mutex}, {@code permits(N)}, {@code read} or
	 * {@code write}
	 */
	public record LeaseDescriptor(String name, @Nullable String key, Instant acquiredAt, String age,
			String timeToExpiry, String kind) {

		static LeaseDescriptor of(HeldLock lock, boolean showKey) {
			return new LeaseDescriptor(lock.name(), showKey ? lock.key() : null,
					lock.acquiredAt().truncatedTo(ChronoUnit.MILLIS), format(lock.age()), format(lock.timeToExpiry()),
					lock.options().getKind().toString());
		}

	}

}
