package dev.lockstarter.store.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.zookeeper.NodeData.Lock;

/**
 * One {@link ZooKeeperLockStore#tryAcquireAll} call: a {@code multi} with one operation
 * per key, all or none: a {@code create} of a node not known to exist, a {@code setData}
 * at the version read of a node found free or taken over. When it fails, the node of the
 * failing operation (and, after a {@code create} found a node, every node still to be
 * created) is read: held by another owner, by the store's rule (its {@code mzxid} not yet
 * seen unchanged for its holder's time-to-live, see
 * {@link dev.lockstarter.store.ObservedExpiry}), the answer names it; free, unchanged for
 * its holder's whole time-to-live or this acquisition's own (an earlier attempt whose
 * answer was lost), the next {@code multi} writes it at the version read; a node at a
 * version the {@code multi} cannot be conditioned on ({@code -2}, {@code -1}, see
 * {@link LockNodeWrites}) is first freed by a write of its own, then read again. Once the
 * {@code multi} applied, every key's lock is counted from when it was sent. The fencing
 * token of every key is the zxid of the transaction, which the answer of a
 * {@code setData} carries; a {@code multi} made of creates only ends with a
 * {@code setData} of the first node, created in it at version 0.
 */
final class MultiKeyAcquisition {

	private static final int MAX_ROUNDS = 8;

	private final ZooKeeperLockStore store;

	private final CuratorFramework client;

	private final List<String> keys;

	private final String token;

	private final byte[] data;

	private final Duration ttl;

	private final long deadline;

	/** Whether each key's node is written at {@link #versions} rather than created. */
	private final boolean[] existing;

	/** The version at which each existing key's node is written. */
	private final int[] versions;

	MultiKeyAcquisition(ZooKeeperLockStore store, List<String> keys, String token, Duration ttl) {
		this.store = store;
		this.client = store.client();
		this.keys = keys;
		this.token = token;
		this.data = NodeData.lock(token, ttl);
		this.ttl = ttl;
		this.deadline = store.calls().deadline();
		this.existing = new boolean[keys.size()];
		this.versions = new int[keys.size()];
	}

	MultiKeyAcquireReply run() {
		String firstKey = this.keys.get(0);
		for (int round = 0; round < MAX_ROUNDS; round++) {
			List<CuratorOp> operations = operations();
			long sentAt = this.store.observed().now();
			CuratorEvent multi = this.store.calls()
				.call("acquire several keys", firstKey, this.deadline,
						(callback) -> this.client.transaction().inBackground(callback).forOperations(operations),
						Code.NODEEXISTS, Code.NONODE, Code.BADVERSION);
			Code code = Code.get(multi.getResultCode());
			if (code == Code.OK) {
				// Every node that one transaction writes or creates is left at its zxid
				long zxid = transactionZxid(multi.getOpResults());
				long[] fencingTokens = new long[this.keys.size()];
				Arrays.fill(fencingTokens, zxid);
				for (String key : this.keys) {
					this.store.observed().wrote(key, this.token, zxid, sentAt, this.ttl);
				}
				return MultiKeyAcquireReply.acquired(fencingTokens);
			}
			int failed = BoundedCalls.failedOperation(multi.getOpResults());
			if (failed < 0 || failed >= this.keys.size()) {
				// Unknown, or the first node changed between its create and its setData:
				// impossible in one transaction, but never guessed at
				throw new LockStoreException(firstKey, "ZooKeeper refused to acquire several keys: " + code, null);
			}
			if (code == Code.NODEEXISTS) {
				// Read this node and every later one still to be created, which likely
				// exist as well: keys used before keep their nodes
				for (int index = failed; index < this.keys.size(); index++) {
					if (index == failed || !this.existing[index]) {
						MultiKeyAcquireReply held = readExisting(index);
						if (held != null) {
							return held;
						}
					}
				}
			}
			else if (code == Code.BADVERSION) {
				// Written by another client since it was read
				MultiKeyAcquireReply held = readExisting(failed);
				if (held != null) {
					return held;
				}
			}
			else if (this.existing[failed]) {
				// NONODE on a write: deleted since it was read
				this.existing[failed] = false;
			}
			else {
				this.store.createParents(this.keys.get(failed), this.deadline);
			}
		}
		return MultiKeyAcquireReply.held(0, Duration.ZERO);
	}

	private List<CuratorOp> operations() {
		List<CuratorOp> operations = new ArrayList<>();
		try {
			boolean written = false;
			for (int i = 0; i < this.keys.size(); i++) {
				String path = this.store.nodes().lockPath(this.keys.get(i));
				if (!this.existing[i]) {
					operations.add(this.client.transactionOp()
						.create()
						.withMode(CreateMode.PERSISTENT)
						.forPath(path, this.data));
				}
				else {
					operations.add(this.client.transactionOp()
						.setData()
						.withVersion(this.versions[i])
						.forPath(path, this.data));
					written = true;
				}
			}
			if (!written) {
				operations.add(this.client.transactionOp()
					.setData()
					.withVersion(0)
					.forPath(this.store.nodes().lockPath(this.keys.get(0)), this.data));
			}
			return operations;
		}
		catch (Exception ex) {
			throw new LockStoreException(this.keys.get(0), "Could not prepare the acquisition of several keys", ex);
		}
	}

	private static long transactionZxid(List<CuratorTransactionResult> results) {
		for (CuratorTransactionResult result : results) {
			if (result.getResultStat() != null) {
				return result.getResultStat().getMzxid();
			}
		}
		throw new IllegalStateException("No setData in the transaction");
	}

	private @Nullable MultiKeyAcquireReply readExisting(int index) {
		String key = this.keys.get(index);
		String path = this.store.nodes().lockPath(key);
		for (int round = 0; round < MAX_ROUNDS; round++) {
			CuratorEvent read = this.store.read("acquire several keys", key, path, this.deadline);
			if (Code.get(read.getResultCode()) == Code.NONODE) {
				this.existing[index] = false;
				return null;
			}
			Stat stat = read.getStat();
			Lock lock = NodeData.decodeLock(read.getData());
			boolean other = false;
			if (lock != null && !lock.token().equals(this.token)) {
				other = true;
				long remaining = this.store.observed().remaining(key, lock.token(), stat.getMzxid(), lock.ttl());
				if (remaining > 0) {
					return MultiKeyAcquireReply.held(index, Duration.ofNanos(remaining));
				}
			}
			if (LockNodeWrites.kind(stat.getVersion()) == LockNodeWrites.Kind.SET_DATA) {
				this.existing[index] = true;
				this.versions[index] = stat.getVersion();
				return null;
			}
			// The multi cannot write the node at this version (-2 or -1): free it
			// first, on condition that it was not written since, which leaves it at a
			// version it can; then read it again. A lock of another owner unchanged
			// for its whole time-to-live is taken over and freed, as this acquisition
			// may; a free node, or one of this acquisition's own, keeps its data
			byte[] data = other ? NodeData.free(this.token) : read.getData();
			this.store.writes()
				.write("acquire several keys", key, path, stat.getVersion(), stat.getMzxid(), data, this.deadline);
		}
		return MultiKeyAcquireReply.held(index, Duration.ZERO);
	}

}
