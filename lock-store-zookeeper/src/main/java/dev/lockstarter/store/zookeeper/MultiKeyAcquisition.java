package dev.lockstarter.store.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.zookeeper.NodeData.Lock;

/**
 * One {@link ZooKeeperLockStore#tryAcquireAll} call: a {@code multi} that creates the
 * ephemeral node of every key, all or none. When it fails on a node that exists, that
 * node is read: held, the answer names it; expired (or left by this acquisition's own
 * earlier attempt, whose answer was lost), the next {@code multi} replaces it (delete at
 * the version read, then create). The {@code multi} ends with a {@code setData} of the
 * first node, whose answer carries the transaction's zxid: the creation zxid of every
 * node, and so the fencing token of every key.
 */
final class MultiKeyAcquisition {

	private static final int MAX_ROUNDS = 8;

	private final ZooKeeperLockStore store;

	private final CuratorFramework client;

	private final List<String> keys;

	private final String token;

	private final byte[] data;

	private final long deadline;

	private final int[] replacedVersions;

	MultiKeyAcquisition(ZooKeeperLockStore store, List<String> keys, String token, Duration ttl) {
		this.store = store;
		this.client = store.client();
		this.keys = keys;
		this.token = token;
		this.data = NodeData.lock(token, store.clock().millis() + ttl.toMillis());
		this.deadline = store.calls().deadline();
		this.replacedVersions = new int[keys.size()];
		Arrays.fill(this.replacedVersions, -1);
	}

	MultiKeyAcquireReply run() {
		String firstKey = this.keys.get(0);
		for (int round = 0; round < MAX_ROUNDS; round++) {
			List<Integer> keyOfOperation = new ArrayList<>();
			List<CuratorOp> operations = operations(keyOfOperation);
			CuratorEvent multi = this.store.calls()
				.call("acquire several keys", firstKey, this.deadline,
						(callback) -> this.client.transaction().inBackground(callback).forOperations(operations),
						Code.NODEEXISTS, Code.NONODE, Code.BADVERSION);
			Code code = Code.get(multi.getResultCode());
			if (code == Code.OK) {
				long[] fencingTokens = new long[this.keys.size()];
				Arrays.fill(fencingTokens, multi.getOpResults().get(operations.size() - 1).getResultStat().getCzxid());
				return MultiKeyAcquireReply.acquired(fencingTokens);
			}
			int failed = ZooKeeperLockStore.failedOperation(multi.getOpResults());
			if (failed < 0 || failed == operations.size() - 1) {
				// Unknown, or the first node changed between create and setData:
				// impossible
				// in one transaction, but never guessed at
				throw new LockStoreException(firstKey, "ZooKeeper refused to acquire several keys: " + code, null);
			}
			int index = keyOfOperation.get(failed);
			String path = this.store.nodes().lockPath(this.keys.get(index));
			if (code == Code.NODEEXISTS) {
				MultiKeyAcquireReply held = readExisting(index, path);
				if (held != null) {
					return held;
				}
			}
			else if (this.replacedVersions[index] >= 0) {
				// The node to replace was deleted or replaced meanwhile: look again
				this.replacedVersions[index] = -1;
			}
			else {
				this.store.createParents(this.keys.get(index), this.deadline);
			}
		}
		return MultiKeyAcquireReply.held(0, Duration.ZERO);
	}

	private List<CuratorOp> operations(List<Integer> keyOfOperation) {
		List<CuratorOp> operations = new ArrayList<>();
		try {
			for (int i = 0; i < this.keys.size(); i++) {
				String path = this.store.nodes().lockPath(this.keys.get(i));
				if (this.replacedVersions[i] >= 0) {
					operations
						.add(this.client.transactionOp().delete().withVersion(this.replacedVersions[i]).forPath(path));
					keyOfOperation.add(i);
				}
				operations
					.add(this.client.transactionOp().create().withMode(CreateMode.EPHEMERAL).forPath(path, this.data));
				keyOfOperation.add(i);
			}
			operations.add(this.client.transactionOp()
				.setData()
				.withVersion(0)
				.forPath(this.store.nodes().lockPath(this.keys.get(0)), this.data));
			keyOfOperation.add(0);
			return operations;
		}
		catch (Exception ex) {
			throw new LockStoreException(this.keys.get(0), "Could not prepare the acquisition of several keys", ex);
		}
	}

	private @Nullable MultiKeyAcquireReply readExisting(int index, String path) {
		CuratorEvent read = this.store.read("acquire several keys", this.keys.get(index), path, this.deadline);
		if (Code.get(read.getResultCode()) == Code.NONODE) {
			this.replacedVersions[index] = -1;
			return null;
		}
		Lock lock = NodeData.decodeLock(read.getData());
		long now = this.store.clock().millis();
		if (lock != null && now < lock.expiresAt() && !lock.token().equals(this.token)) {
			return MultiKeyAcquireReply.held(index, Duration.ofMillis(lock.expiresAt() - now));
		}
		this.replacedVersions[index] = read.getStat().getVersion();
		return null;
	}

}
