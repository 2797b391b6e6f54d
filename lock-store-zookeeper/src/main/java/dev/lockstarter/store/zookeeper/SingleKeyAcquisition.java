package dev.lockstarter.store.zookeeper;

import java.time.Duration;

import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.zookeeper.LockNodeWrites.Written;
import dev.lockstarter.store.zookeeper.NodeData.Lock;

/**
 * One {@link ZooKeeperLockStore#tryAcquire} call: reads the lock node; creates it if
 * missing, or, free or taken over (unchanged for its holder's time-to-live, see
 * {@link dev.lockstarter.store.ObservedExpiry}), writes it at the version read, so that
 * of several contenders exactly one wins. A write whose answer was lost is recognised by
 * the call's own token when the node is read again, and counted from when the call first
 * sent a write. The fencing token is the zxid of the acquiring write.
 */
final class SingleKeyAcquisition {

	private static final int MAX_ROUNDS = 8;

	private final ZooKeeperLockStore store;

	private final String key;

	private final String token;

	private final Duration ttl;

	private final byte[] data;

	private final String path;

	private final long deadline;

	/**
	 * When this call first sent a write: a write of it found applied later was sent no
	 * earlier.
	 */
	private @Nullable Long firstSent;

	SingleKeyAcquisition(ZooKeeperLockStore store, String key, String token, Duration ttl) {
		this.store = store;
		this.key = key;
		this.token = token;
		this.ttl = ttl;
		this.data = NodeData.lock(token, ttl);
		this.path = store.nodes().lockPath(key);
		this.deadline = store.calls().deadline();
	}

	AcquireReply run() {
		for (int round = 0; round < MAX_ROUNDS; round++) {
			CuratorEvent read = this.store.read("acquire", this.key, this.path, this.deadline);
			if (Code.get(read.getResultCode()) == Code.NONODE) {
				AcquireReply created = create();
				if (created != null) {
					return created;
				}
				// Created by another contender meanwhile (or by this call, repeated after
				// its answer was lost): look again
				continue;
			}
			Stat stat = read.getStat();
			Lock lock = NodeData.decodeLock(read.getData());
			if (lock != null && lock.token().equals(this.token)) {
				Long own = this.store.observed().ownRemaining(this.key, this.token, stat.getMzxid());
				if (own != null && own > 0) {
					// An acquisition with this token whose write this store recorded, and
					// whose time-to-live still runs: the same acquisition
					return AcquireReply.acquired(stat.getMzxid());
				}
				if (own == null && this.firstSent != null) {
					// This acquisition's own write, repeated after its answer was lost:
					// counted from this call's first write, no later than it was sent
					// (no other instance writes with a token before the acquisition that
					// drew it has answered)
					this.store.wrote(this.key, this.token, stat, this.firstSent, this.ttl);
					return AcquireReply.acquired(stat.getMzxid());
				}
				// Its time-to-live passed, or written with this token by another
				// instance, at a time this store cannot know: write it anew, as an
				// acquisition of a free lock
			}
			else if (lock != null) {
				long remaining = this.store.observed().remaining(this.key, lock.token(), stat.getMzxid(), lock.ttl());
				if (remaining > 0) {
					return AcquireReply.held(Duration.ofNanos(remaining));
				}
			}
			// Free, or unchanged for its holder's whole time-to-live: take it on
			// condition that it was not written since it was read, so that of
			// several contenders exactly one wins
			long sentAt = sending();
			Written take = this.store.writes()
				.write("acquire", this.key, this.path, stat.getVersion(), stat.getMzxid(), this.data, this.deadline);
			if (take.applied()) {
				this.store.wrote(this.key, this.token, take.after(), sentAt, this.ttl);
				return AcquireReply.acquired(take.after().getMzxid());
			}
			// Another contender took or released it first, or the holder renewed it:
			// look again
		}
		return AcquireReply.held(Duration.ZERO);
	}

	/**
	 * Create the missing lock node.
	 * @return acquired, or {@code null} when the node must be read again
	 */
	private @Nullable AcquireReply create() {
		Stat created = new Stat();
		long sentAt = sending();
		CuratorEvent create = this.store.calls()
			.call("acquire", this.key, this.deadline,
					(callback) -> this.store.client()
						.create()
						.storingStatIn(created)
						.withMode(CreateMode.PERSISTENT)
						.inBackground(callback)
						.forPath(this.path, this.data),
					Code.NODEEXISTS, Code.NONODE);
		Code code = Code.get(create.getResultCode());
		if (code == Code.OK) {
			Stat stat = (create.getStat() != null) ? create.getStat() : created;
			this.store.wrote(this.key, this.token, stat, sentAt, this.ttl);
			return AcquireReply.acquired(stat.getMzxid());
		}
		if (code == Code.NONODE) {
			this.store.createParents(this.key, this.deadline);
		}
		return null;
	}

	/**
	 * Return the monotonic time at which a write is sent now, remembered as this call's
	 * first if it is.
	 */
	private long sending() {
		long sentAt = this.store.observed().now();
		if (this.firstSent == null) {
			this.firstSent = sentAt;
		}
		return sentAt;
	}

}
