package dev.lockstarter.store.zookeeper;

import java.time.Duration;
import java.util.Arrays;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The results a {@link ZooKeeperLockStore} keeps next to its locks: a persistent node
 * {@code <base path>/results/<key>} holding the result's expiry time and bytes, written
 * in a {@code multi} whose first operation checks (or, for a release that keeps a result,
 * frees) the lock node at the version read with the holder's token, so that only the
 * current holder writes one, and not once this store's own lock outlived its
 * time-to-live. A lock node at a version that the {@code multi} cannot be conditioned on
 * ({@link LockNodeWrites}) is first written again with the holder's own data. The result
 * node is created, or replaced when it exists; an expired result is emptied by its first
 * reader, at the version read, unless that version is {@code -2} or {@code -1}. Result
 * nodes are never deleted.
 * <p>
 * A result's expiry time is on the wall clock of the store that wrote it (the store's
 * {@code Clock}), and a reader compares it with its own: results are not mutual
 * exclusion, so a skewed clock only makes a kept result end early or late.
 */
final class ResultNodes {

	private static final int MAX_ROUNDS = 8;

	private final ZooKeeperLockStore store;

	private final CuratorFramework client;

	ResultNodes(ZooKeeperLockStore store) {
		this.store = store;
		this.client = store.client();
	}

	byte @Nullable [] get(String key) {
		long deadline = this.store.calls().deadline();
		String path = this.store.nodes().resultPath(key);
		CuratorEvent read = this.store.read("read a result", key, path, deadline);
		if (Code.get(read.getResultCode()) == Code.NONODE) {
			return null;
		}
		NodeData.Result kept = NodeData.decodeResult(read.getData());
		if (kept != null && this.store.clock().millis() < kept.expiresAt()) {
			return kept.bytes();
		}
		byte[] data = read.getData();
		int version = read.getStat().getVersion();
		if (data != null && data.length > 0 && LockNodeWrites.kind(version) == LockNodeWrites.Kind.SET_DATA) {
			// Expired: emptied by its first reader, unless it was replaced meanwhile.
			// Not at -2, which the emptying would leave at -1, nor at -1, where it
			// would apply whatever replaced it: the next result replaces it, and
			// readers find it expired meanwhile
			this.store.calls()
				.call("empty an expired result", key, deadline,
						(callback) -> this.client.setData()
							.withVersion(version)
							.inBackground(callback)
							.forPath(path, new byte[0]),
						Code.NONODE, Code.BADVERSION);
		}
		return null;
	}

	boolean keep(String key, String token, byte[] result, Duration ttl, boolean release) {
		long deadline = this.store.calls().deadline();
		String operation = release ? "release keeping a result" : "keep a result";
		String lockPath = this.store.nodes().lockPath(key);
		String resultPath = this.store.nodes().resultPath(key);
		byte[] data = NodeData.result(result, this.store.clock().millis() + ttl.toMillis());
		boolean exists = false;
		for (int round = 0; round < MAX_ROUNDS; round++) {
			CuratorEvent read = this.store.read(operation, key, lockPath, deadline);
			if (Code.get(read.getResultCode()) == Code.NONODE) {
				return false;
			}
			if (release && round > 0 && Arrays.equals(read.getData(), NodeData.free(token))) {
				// This release, repeated after its answer was lost: the lock was freed in
				// the same multi that wrote the result
				return true;
			}
			NodeData.Lock lock = NodeData.decodeLock(read.getData());
			if (lock == null || !lock.token().equals(token)) {
				return false;
			}
			Stat held = read.getStat();
			if (this.store.observed().remaining(key, token, held.getMzxid(), lock.ttl()) <= 0) {
				// Unchanged for its whole time-to-live by this store's count: anyone may
				// take it over
				return false;
			}
			LockNodeWrites.Kind kind = LockNodeWrites.kind(held.getVersion());
			if (kind == LockNodeWrites.Kind.GUARDED || (release && kind == LockNodeWrites.Kind.RESTART)) {
				// The multi cannot check or write the lock node at this version:
				// write the holder's own data again first, on condition that it was
				// not written since, which leaves the node at a version it can; then
				// read it again
				this.store.writes()
					.write(operation, key, lockPath, held.getVersion(), held.getMzxid(), read.getData(), deadline);
				continue;
			}
			boolean replace = exists;
			CuratorEvent multi = this.store.calls().call(operation, key, deadline, (callback) -> {
				CuratorOp lockOp = release
						? this.client.transactionOp()
							.setData()
							.withVersion(held.getVersion())
							.forPath(lockPath, NodeData.free(token))
						: this.client.transactionOp().check().withVersion(held.getVersion()).forPath(lockPath);
				CuratorOp resultOp = replace ? this.client.transactionOp().setData().forPath(resultPath, data)
						: this.client.transactionOp()
							.create()
							.withMode(CreateMode.PERSISTENT)
							.forPath(resultPath, data);
				this.client.transaction().inBackground(callback).forOperations(lockOp, resultOp);
			}, Code.NONODE, Code.BADVERSION, Code.NODEEXISTS);
			if (Code.get(multi.getResultCode()) == Code.OK) {
				return true;
			}
			int failed = BoundedCalls.failedOperation(multi.getOpResults());
			Code code = Code.get(multi.getResultCode());
			if (failed == 1) {
				if (code == Code.NODEEXISTS) {
					exists = true;
				}
				else if (!replace) {
					this.store.createParents(key, deadline);
				}
				else {
					exists = false;
				}
			}
			// failed == 0: the lock changed since it was read; read it again
		}
		return false;
	}

}
