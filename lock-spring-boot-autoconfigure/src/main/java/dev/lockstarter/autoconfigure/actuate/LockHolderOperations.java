package dev.lockstarter.autoconfigure.actuate;

import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockHolders;
import dev.lockstarter.core.LockHolders.LockHolder;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LogSafe;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The {@link LocksEndpoint}'s operations on the store's holders: listing the holders of
 * the keys under a prefix, and force-releasing a key, audited with an
 * {@link AuditApplicationEvent} of type {@value #FORCE_RELEASE_EVENT} and a WARN that
 * name the operator and the key.
 */
final class LockHolderOperations {

	/** The type of the audit event of a force-release. */
	static final String FORCE_RELEASE_EVENT = "LOCK_FORCE_RELEASE";

	/** The most holders one listing returns. */
	static final int MAX_LIMIT = 1000;

	static final int DEFAULT_LIMIT = 100;

	private static final Log logger = LogFactory.getLog(LockHolderOperations.class);

	private final Supplier<Optional<LockHolders>> holders;

	private final @Nullable ApplicationEventPublisher events;

	private final boolean showKeys;

	/**
	 * Create the operations.
	 * @param holders the view of the store's holders, empty for a store that cannot list
	 * them
	 * @param events the publisher of audit events, or {@code null}
	 * @param showKeys whether to show the keys of the holders listed
	 */
	LockHolderOperations(Supplier<Optional<LockHolders>> holders, @Nullable ApplicationEventPublisher events,
			boolean showKeys) {
		this.holders = holders;
		this.events = events;
		this.showKeys = showKeys;
	}

	/** Operations for a store that cannot list its holders. */
	static LockHolderOperations none() {
		return new LockHolderOperations(Optional::empty, null, false);
	}

	HoldersDescriptor find(String keyPrefix, @Nullable Integer limit) {
		int max = (limit != null) ? limit : DEFAULT_LIMIT;
		if (max < 1 || max > MAX_LIMIT) {
			throw new InvalidEndpointRequestException("The limit must be between 1 and " + MAX_LIMIT,
					"Invalid limit " + max);
		}
		LockHolders.Listing listing = view().find(keyPrefix, max);
		List<HolderDescriptor> found = listing.holders()
			.stream()
			.map((holder) -> HolderDescriptor.of(holder, this.showKeys))
			.toList();
		return new HoldersDescriptor(found, listing.truncated());
	}

	ForceReleaseDescriptor forceRelease(String key, @Nullable String owner, SecurityContext securityContext) {
		LockHolders view = view();
		Principal principal = securityContext.getPrincipal();
		String operator = (principal != null) ? principal.getName() : "anonymous";
		boolean released = (owner != null) ? view.forceRelease(key, owner) : view.forceRelease(key);
		String notHeld = (owner != null) ? "the listed holder (owner " + LogSafe.key(owner) + ") no longer held it"
				: "no one held it";
		logger.warn("Lock '" + LogSafe.key(key) + "' force-released by '" + LogSafe.key(operator)
				+ "' through the locks endpoint: "
				+ (released ? "its holder finds it lost at its next renewal or release" : notHeld));
		if (this.events != null) {
			Map<String, Object> data = new LinkedHashMap<>();
			data.put("key", key);
			if (owner != null) {
				data.put("owner", owner);
			}
			data.put("released", released);
			this.events.publishEvent(auditEvent(operator, data));
		}
		return new ForceReleaseDescriptor(released);
	}

	// Spring Boot 4.0 declares the data's values @Nullable and 4.1 does not: one of the
	// two lines fails NullAway's check of the type argument, whichever map is passed
	@SuppressWarnings("NullAway")
	private static AuditApplicationEvent auditEvent(String operator, Map<String, Object> data) {
		return new AuditApplicationEvent(operator, FORCE_RELEASE_EVENT, data);
	}

	private LockHolders view() {
		return this.holders.get()
			.orElseThrow(() -> new InvalidEndpointRequestException(
					"The lock store cannot list holders or force-release locks",
					"The lock store is not an InspectableLockStore"));
	}

	/**
	 * The holders of the keys under a prefix.
	 *
	 * @param holders the holders, in key order
	 * @param truncated whether the listing stopped at its limit, so that more holders may
	 * exist
	 */
	public record HoldersDescriptor(List<HolderDescriptor> holders,
			boolean truncated) implements OperationResponseBody {

	}

	/**
	 * A holder of a key.
	 *
	 * @param key the key, or {@code null} unless {@code lock.actuator.show-keys} is set
	 * @param owner a fingerprint of the holder's owner token, never the token: the same
	 * for the same acquisition on every instance's endpoint
	 * @param timeToExpiry the time left before the lock expires unless renewed, as the
	 * store tells it
	 * @param fencingToken the lock's fencing token, or {@code null} if the store issues
	 * none or has not drawn it
	 * @param heldByThisInstance whether the instance that answers holds the lock
	 */
	public record HolderDescriptor(@Nullable String key, String owner, String timeToExpiry, @Nullable Long fencingToken,
			boolean heldByThisInstance) {

		static HolderDescriptor of(LockHolder holder, boolean showKey) {
			return new HolderDescriptor(showKey ? holder.key() : null, holder.owner(),
					LocksEndpoint.format(holder.timeToExpiry()),
					(holder.fencingToken() != AcquireReply.NO_FENCING_TOKEN) ? holder.fencingToken() : null,
					holder.heldHere());
		}

	}

	/**
	 * The outcome of a force-release.
	 *
	 * @param released whether the key was held and is now free
	 */
	public record ForceReleaseDescriptor(boolean released) implements OperationResponseBody {

	}

}
