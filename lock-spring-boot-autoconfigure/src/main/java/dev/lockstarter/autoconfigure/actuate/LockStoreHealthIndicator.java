package dev.lockstarter.autoconfigure.actuate;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.UUID;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.util.Assert;

/**
 * Health of a lock store, checked by using it: each check acquires and releases a probe
 * lock, {@code {key prefix}health:{instance id}}, through the {@link LockStore}, with a
 * short time-to-live. UP with the kind of store and the time the probe took
 * ({@code roundTrip}, both calls); DOWN with the failure when the store does not answer,
 * which takes at most the store's own timeouts (for example
 * {@code lock.memcached.operation-timeout} or {@code lock.dynamodb.timeout}).
 * <p>
 * A probe that finds its key held, left by an earlier probe whose release failed or by a
 * concurrent check, still counts as an answer: the key expires with its short
 * time-to-live.
 */
class LockStoreHealthIndicator extends AbstractHealthIndicator {

	/** Time-to-live of the probe lock, should its release fail. */
	static final Duration PROBE_TTL = Duration.ofSeconds(10);

	private static final SecureRandom random = new SecureRandom();

	private final LockStore store;

	private final String kind;

	private final String probeKey;

	LockStoreHealthIndicator(LockStore store, String kind, String keyPrefix) {
		super("Lock store health check failed");
		Assert.notNull(store, "'store' must not be null");
		this.store = store;
		this.kind = kind;
		byte[] instanceId = new byte[8];
		random.nextBytes(instanceId);
		this.probeKey = keyPrefix + "health:" + HexFormat.of().formatHex(instanceId);
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		builder.withDetail("store", this.kind);
		String token = UUID.randomUUID().toString();
		long start = System.nanoTime();
		AcquireReply result = this.store.tryAcquire(this.probeKey, token, PROBE_TTL);
		if (result.isAcquired()) {
			this.store.release(this.probeKey, token);
		}
		builder.up().withDetail("roundTrip", LocksEndpoint.format(Duration.ofNanos(System.nanoTime() - start)));
	}

	String getProbeKey() {
		return this.probeKey;
	}

}
