package dev.lockstarter.store.redis;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import org.springframework.util.Assert;

/**
 * Acquisitions and extensions that count only once replicas acknowledged them: the
 * acquire script (which draws the fencing token), or the extend script, and then
 * {@code WAIT n timeout} on the same, dedicated connection. An acquisition that fewer
 * replicas acknowledged in time is released by its token and fails. An extension that
 * fewer replicas acknowledged fails too (it stays on the primary, harmless), so that the
 * holder never counts on time a promoted replica does not have: its lease runs on from
 * its last acknowledged renewal. This narrows the window in which a failover loses a
 * lock, but does not close it: {@code WAIT} does not make a write durable, and a replica
 * that acknowledged it may still not be the one promoted. Not supported on Redis Cluster.
 */
final class ReplicaAcknowledgements {

	private volatile int minReplicaAcks;

	private volatile Duration timeout = Duration.ofSeconds(1);

	void setMinReplicaAcks(int minReplicaAcks) {
		Assert.isTrue(minReplicaAcks >= 0, "'minReplicaAcks' must not be negative");
		this.minReplicaAcks = minReplicaAcks;
	}

	void setTimeout(Duration timeout) {
		Assert.notNull(timeout, "'replicaAckTimeout' must not be null");
		Assert.isTrue(!timeout.isNegative() && !timeout.isZero(), "'replicaAckTimeout' must be positive");
		this.timeout = timeout;
	}

	/**
	 * Return whether acquisitions wait for replicas.
	 * @return whether at least one acknowledgement is required
	 */
	boolean required() {
		return this.minReplicaAcks > 0;
	}

	/**
	 * Acquire and wait for the replicas.
	 * @param executor the executor that sends the commands
	 * @param operation the acquisition
	 * @param call the acquire script that draws the fencing token
	 * @param topology the deployment
	 * @param release releases the lock by its token
	 * @return the reply: held, or acquired and acknowledged
	 * @throws LockStoreException when acquired without enough acknowledgements, or on
	 * Redis Cluster
	 */
	AcquireReply acquire(RedisCommandExecutor executor, RedisOperation operation, ScriptCall<Long> call,
			RedisTopology topology, Runnable release) {
		int required = this.minReplicaAcks;
		Duration waitTimeout = this.timeout;
		refuseCluster(operation, topology);
		Acknowledged acknowledged = executor.evalThenWait(operation, call, required, waitTimeout);
		AcquireReply reply = RedisLockScripts.acquireReply(acknowledged.reply());
		if (!reply.isAcquired() || acknowledged.acks() >= required) {
			return reply;
		}
		// Acquired but not acknowledged: it does not count, so it must not stay behind
		String key = operation.key();
		String released = releaseQuietly(release) ? "the lock was released"
				: "releasing it failed too, so it expires with its time-to-live";
		Exception waitFailure = acknowledged.waitFailure();
		if (waitFailure != null) {
			throw new LockStoreException(key,
					"Redis lock store acquired lock '" + key
							+ "' but could not wait for its replica acknowledgements (lock.redis.min-replica-acks); "
							+ released,
					waitFailure);
		}
		long acks = acknowledged.acks();
		throw new LockStoreException(key,
				"Redis lock store acquired lock '" + key + "' but only " + Math.max(acks, 0) + " of the " + required
						+ " replicas required (lock.redis.min-replica-acks) acknowledged it within "
						+ waitTimeout.toMillis() + " ms; " + released,
				new IllegalStateException("WAIT " + required + " " + waitTimeout.toMillis() + " answered " + acks));
	}

	/**
	 * Extend and wait for the replicas.
	 * @param executor the executor that sends the commands
	 * @param operation the extension
	 * @param call the extend script, answering 1 when the token held the lock
	 * @param topology the deployment
	 * @return whether the lock was extended, and acknowledged
	 * @throws LockStoreException when extended without enough acknowledgements, or on
	 * Redis Cluster
	 */
	boolean extend(RedisCommandExecutor executor, RedisOperation operation, ScriptCall<Long> call,
			RedisTopology topology) {
		int required = this.minReplicaAcks;
		Duration waitTimeout = this.timeout;
		refuseCluster(operation, topology);
		Acknowledged acknowledged = executor.evalThenWait(operation, call, required, waitTimeout);
		Long reply = acknowledged.reply();
		boolean extended = reply != null && reply == 1;
		if (!extended || acknowledged.acks() >= required) {
			return extended;
		}
		String key = operation.key();
		Exception waitFailure = acknowledged.waitFailure();
		String outcome = (waitFailure != null) ? "could not wait for its replica acknowledgements"
				: "only " + Math.max(acknowledged.acks(), 0) + " of the " + required
						+ " replicas required acknowledged it within " + waitTimeout.toMillis() + " ms";
		throw new LockStoreException(key,
				"Redis lock store extended lock '" + key + "' but " + outcome
						+ " (lock.redis.min-replica-acks); the extension does not count",
				(waitFailure != null) ? waitFailure : new IllegalStateException(
						"WAIT " + required + " " + waitTimeout.toMillis() + " answered " + acknowledged.acks()));
	}

	private static void refuseCluster(RedisOperation operation, RedisTopology topology) {
		if (topology.cluster()) {
			throw new LockStoreException(operation.key(),
					"Redis lock store cannot wait for replica acknowledgements "
							+ "(min-replica-acks) on Redis Cluster; set lock.redis.min-replica-acks to 0",
					new IllegalStateException("WAIT on Redis Cluster"));
		}
	}

	private static boolean releaseQuietly(Runnable release) {
		try {
			release.run();
			return true;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * The answer of an acquisition followed by {@code WAIT}.
	 *
	 * @param reply the acquire script's answer, {@code null} if none
	 * @param acks the replicas that acknowledged it, -1 when not waited for or failed
	 * @param waitFailure the failure of {@code WAIT}, if it failed
	 */
	record Acknowledged(@Nullable Long reply, long acks, @Nullable Exception waitFailure) {
	}

}
