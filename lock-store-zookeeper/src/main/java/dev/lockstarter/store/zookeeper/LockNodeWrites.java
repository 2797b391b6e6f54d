package dev.lockstarter.store.zookeeper;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;

/**
 * The writes of a lock node conditioned on what a read of it found, made so that no write
 * is ever conditioned on the version {@code -1} unawares and no write ever leaves a node
 * at {@code -1}.
 * <p>
 * ZooKeeper's data version is a signed 32-bit integer that every write raises by one:
 * after {@link Integer#MAX_VALUE} it wraps to {@link Integer#MIN_VALUE}, and a
 * {@code setData}, {@code delete} or {@code check} at the version {@code -1} applies
 * whatever the node's version is. A write made at the version read is therefore made
 * according to that version ({@link #kind(int)}):
 * <ul>
 * <li>{@link Kind#SET_DATA}, any version but {@code -2} and {@code -1}: a {@code setData}
 * at the version read, which leaves the node at the next version.</li>
 * <li>{@link Kind#RESTART}, {@code -2}, where a {@code setData} would leave the node at
 * {@code -1}: one {@code multi} deletes the node at {@code -2}, creates it again and
 * writes the data at version 0, which leaves it at version 1 with a new {@code mzxid}. A
 * version read before comes back no sooner than it would have through the wrap: after
 * some 2³² writes of the key.</li>
 * <li>{@link Kind#GUARDED}, {@code -1}, where a node can be left only by a store that
 * wrote at {@code -2} (earlier versions of this one did): no write can be conditioned on
 * the node's version. The write is one {@code multi} with a {@code setData} of the parent
 * of the lock nodes at the parent's version, read before a second read of the lock node
 * found its {@code mzxid} unchanged. Every write of the store that applies to a node at
 * {@code -1} is such a {@code multi} and raises the parent's version (nothing else writes
 * the parent's data), and every other one fails there, so the {@code multi} fails if the
 * node was written since it was read. It leaves the node at version 0.</li>
 * </ul>
 * The {@code mzxid} of the node after any of these writes is the zxid of that write, as
 * for a plain {@code setData}: fencing tokens and the contenders' count of unchanged
 * records work the same.
 */
final class LockNodeWrites {

	private final CuratorFramework client;

	private final BoundedCalls calls;

	private final ZooKeeperLockStore store;

	LockNodeWrites(ZooKeeperLockStore store) {
		this.store = store;
		this.client = store.client();
		this.calls = store.calls();
	}

	/**
	 * Return how a write conditioned on {@code version}, the data version a read found,
	 * is made.
	 * @param version the version read
	 * @return the kind of write
	 */
	static Kind kind(int version) {
		return switch (version) {
			case -2 -> Kind.RESTART;
			case -1 -> Kind.GUARDED;
			default -> Kind.SET_DATA;
		};
	}

	/**
	 * Write {@code data} into the lock node at {@code path}, which a read found at
	 * {@code version} and {@code mzxid}, on condition that it was not written since.
	 * @param operation what the store is doing, for a failure's message
	 * @param key the lock's key, for a failure
	 * @param path the lock node's path
	 * @param version the node's data version, as read
	 * @param mzxid the node's {@code mzxid}, as read
	 * @param data the data to write
	 * @param deadline the operation's deadline
	 * @return the answer: {@link Code#OK} with the node's stat after the write,
	 * {@link Code#BADVERSION} if the node was written since it was read, or
	 * {@link Code#NONODE} if it is gone
	 */
	Written write(String operation, String key, String path, int version, long mzxid, byte[] data, long deadline) {
		return switch (kind(version)) {
			case SET_DATA -> setData(operation, key, path, version, data, deadline);
			case RESTART -> restart(operation, key, path, data, deadline);
			case GUARDED -> guarded(operation, key, path, mzxid, data, deadline);
		};
	}

	private Written setData(String operation, String key, String path, int version, byte[] data, long deadline) {
		CuratorEvent set = this.calls.call(operation, key, deadline,
				(callback) -> this.client.setData().withVersion(version).inBackground(callback).forPath(path, data),
				Code.NONODE, Code.BADVERSION);
		return new Written(Code.get(set.getResultCode()), set.getStat());
	}

	private Written restart(String operation, String key, String path, byte[] data, long deadline) {
		CuratorEvent multi = this.calls.call(operation, key, deadline, (callback) -> this.client.transaction()
			.inBackground(callback)
			.forOperations(this.client.transactionOp().delete().withVersion(-2).forPath(path),
					this.client.transactionOp().create().withMode(CreateMode.PERSISTENT).forPath(path, new byte[0]),
					this.client.transactionOp().setData().withVersion(0).forPath(path, data)),
				Code.NONODE, Code.BADVERSION);
		return written(multi, 2);
	}

	private Written guarded(String operation, String key, String path, long mzxid, byte[] data, long deadline) {
		String parentPath = this.store.nodes().locksPath();
		CuratorEvent parent = this.store.read(operation, key, parentPath, deadline);
		if (Code.get(parent.getResultCode()) == Code.NONODE) {
			return new Written(Code.NONODE, null);
		}
		int parentVersion = parent.getStat().getVersion();
		if (kind(parentVersion) != Kind.SET_DATA) {
			// Raised once per write of a node found at -1, which only earlier versions of
			// the store left: never near the end of its range
			throw new LockStoreException(key, "The parent of the lock nodes, " + parentPath + ", is at version "
					+ parentVersion + ": a write of a lock node at version -1 cannot be conditioned on it", null);
		}
		// Read after the parent: a write of the node since this read raised the parent's
		// version, and the multi fails
		CuratorEvent again = this.store.read(operation, key, path, deadline);
		if (Code.get(again.getResultCode()) == Code.NONODE) {
			return new Written(Code.NONODE, null);
		}
		if (again.getStat().getMzxid() != mzxid || again.getStat().getVersion() != -1) {
			return new Written(Code.BADVERSION, null);
		}
		byte[] parentData = (parent.getData() != null) ? parent.getData() : new byte[0];
		CuratorEvent multi = this.calls.call(operation, key, deadline, (callback) -> this.client.transaction()
			.inBackground(callback)
			.forOperations(
					this.client.transactionOp().setData().withVersion(parentVersion).forPath(parentPath, parentData),
					this.client.transactionOp().setData().withVersion(-1).forPath(path, data)),
				Code.NONODE, Code.BADVERSION);
		return written(multi, 1);
	}

	private static Written written(CuratorEvent multi, int dataOperation) {
		Code code = Code.get(multi.getResultCode());
		if (code != Code.OK) {
			return new Written(code, null);
		}
		CuratorTransactionResult result = multi.getOpResults().get(dataOperation);
		return new Written(Code.OK, result.getResultStat());
	}

	/**
	 * How a write conditioned on a version read is made.
	 */
	enum Kind {

		/** A {@code setData} at the version read. */
		SET_DATA,

		/**
		 * The version read is {@code -2}: delete at {@code -2}, create and write in one
		 * {@code multi}, which leaves the node at version 1.
		 */
		RESTART,

		/**
		 * The version read is {@code -1}: write in one {@code multi} conditioned on the
		 * version of the lock nodes' parent, which leaves the node at version 0.
		 */
		GUARDED

	}

	/**
	 * The answer of a write.
	 *
	 * @param code {@link Code#OK}, {@link Code#BADVERSION} or {@link Code#NONODE}
	 * @param stat the node's stat after the write, when it applied
	 */
	record Written(Code code, @Nullable Stat stat) {

		boolean applied() {
			return this.code == Code.OK;
		}

		/**
		 * Return the node's stat after the write.
		 * @throws IllegalStateException if the write did not apply
		 */
		Stat after() {
			if (this.stat == null) {
				throw new IllegalStateException("No stat: the write answered " + this.code);
			}
			return this.stat;
		}

	}

}
