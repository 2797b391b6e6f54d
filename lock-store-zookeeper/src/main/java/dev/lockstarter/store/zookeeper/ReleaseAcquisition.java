package dev.lockstarter.store.zookeeper;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.zookeeper.NodeData.Lock;

/**
 * One {@link ZooKeeperLockStore#tryAcquireOnRelease} call: the acquisition that the
 * thread announcing a release (ZooKeeper's event thread) sends for a waiter, without
 * blocking it. It reads the lock node and, from the read's answer, writes it at the
 * version read when it is free or taken over, as {@link SingleKeyAcquisition} does; the
 * write's answer completes the reply, so the waiter wakes once, with the grant.
 * <p>
 * It takes only that common path, once. Whatever else it finds (the node missing, the
 * waiter's own token in it, a version at the end of its range, another contender's write
 * first, a lost connection before anything was written, no answer to the read within the
 * store's timeout) answers "held" and leaves the lock to the waiter's next try, by
 * notification or by poll, which runs the whole acquisition. Once it has answered "held",
 * it writes nothing: a read answered after the timeout is dropped, so that no lock is
 * taken for a waiter that was told it was not. A write refused for its version is told
 * from this write itself, applied and sent again by Curator's retry after its answer was
 * lost, by reading the node for the waiter's token. A write whose answer is lost, or that
 * does not answer within the store's timeout, fails the reply: it may have applied, and
 * the waiter releases by token.
 */
final class ReleaseAcquisition {

	private final ZooKeeperLockStore store;

	private final String key;

	private final String token;

	private final Duration ttl;

	private final String path;

	private final CompletableFuture<AcquireReply> reply = new CompletableFuture<>();

	/**
	 * Set once, by whichever comes first: the write about to be sent (past the timeout,
	 * the reply then fails), or the timeout before it (the reply answers "held", and
	 * nothing is written).
	 */
	private final AtomicBoolean decided = new AtomicBoolean();

	ReleaseAcquisition(ZooKeeperLockStore store, String key, String token, Duration ttl) {
		this.store = store;
		this.key = key;
		this.token = token;
		this.ttl = ttl;
		this.path = store.nodes().lockPath(key);
	}

	/**
	 * Send the read.
	 * @return the reply, completed on ZooKeeper's event thread, or failed past the
	 * store's timeout
	 */
	CompletableFuture<AcquireReply> start() {
		CuratorFramework client = this.store.client();
		try {
			client.getData().inBackground((ignored, read) -> read(read)).forPath(this.path);
		}
		catch (Exception ex) {
			// Nothing sent
			return CompletableFuture.completedFuture(AcquireReply.held(Duration.ZERO));
		}
		CompletableFuture.delayedExecutor(this.store.calls().timeout().toNanos(), TimeUnit.NANOSECONDS)
			.execute(this::timedOut);
		return this.reply;
	}

	private void timedOut() {
		if (this.decided.compareAndSet(false, true)) {
			this.reply.complete(AcquireReply.held(Duration.ZERO));
		}
		else {
			this.reply.completeExceptionally(this.store.calls().timedOut("acquire on a release", this.key, null));
		}
	}

	private void read(CuratorEvent read) {
		if (Code.get(read.getResultCode()) != Code.OK) {
			this.reply.complete(AcquireReply.held(Duration.ZERO));
			return;
		}
		Stat stat = read.getStat();
		Lock lock = NodeData.decodeLock(read.getData());
		if (lock != null) {
			if (lock.token().equals(this.token)) {
				// Written with the waiter's own token: the whole acquisition tells how
				this.reply.complete(AcquireReply.held(Duration.ZERO));
				return;
			}
			long remaining = this.store.observed().remaining(this.key, lock.token(), stat.getMzxid(), lock.ttl());
			if (remaining > 0) {
				this.reply.complete(AcquireReply.held(Duration.ofNanos(remaining)));
				return;
			}
		}
		if (LockNodeWrites.kind(stat.getVersion()) != LockNodeWrites.Kind.SET_DATA) {
			this.reply.complete(AcquireReply.held(Duration.ZERO));
			return;
		}
		write(stat.getVersion());
	}

	private void write(int version) {
		long sentAt = this.store.observed().now();
		if (!this.decided.compareAndSet(false, true)) {
			// Answered "held" at the timeout: the waiter's next try decides
			return;
		}
		try {
			this.store.client()
				.setData()
				.withVersion(version)
				.inBackground((ignored, written) -> written(written, sentAt))
				.forPath(this.path, NodeData.lock(this.token, this.ttl));
		}
		catch (Exception ex) {
			this.reply.completeExceptionally(failed(ex));
		}
	}

	private void written(CuratorEvent written, long sentAt) {
		Code code = Code.get(written.getResultCode());
		if (code == Code.OK) {
			Stat after = written.getStat();
			this.store.wrote(this.key, this.token, after, sentAt, this.ttl);
			this.reply.complete(AcquireReply.acquired(after.getMzxid()));
		}
		else if (code == Code.BADVERSION) {
			// Written by another contender first, or by this write itself, applied and
			// sent again by Curator's retry after its answer was lost: the node tells
			readAgain(sentAt);
		}
		else if (code == Code.NONODE) {
			this.reply.complete(AcquireReply.held(Duration.ZERO));
		}
		else {
			// The answer is lost: the write may have applied
			this.reply.completeExceptionally(failed(null));
		}
	}

	private void readAgain(long sentAt) {
		try {
			this.store.client().getData().inBackground((ignored, read) -> {
				Lock lock = (Code.get(read.getResultCode()) == Code.OK) ? NodeData.decodeLock(read.getData()) : null;
				if (lock != null && lock.token().equals(this.token)) {
					// This write, applied: counted from when it was first sent
					this.store.wrote(this.key, this.token, read.getStat(), sentAt, this.ttl);
					this.reply.complete(AcquireReply.acquired(read.getStat().getMzxid()));
				}
				else if (Code.get(read.getResultCode()) == Code.OK || Code.get(read.getResultCode()) == Code.NONODE) {
					this.reply.complete(AcquireReply.held(Duration.ZERO));
				}
				else {
					this.reply.completeExceptionally(failed(null));
				}
			}).forPath(this.path);
		}
		catch (Exception ex) {
			this.reply.completeExceptionally(failed(ex));
		}
	}

	private LockStoreException failed(@Nullable Exception cause) {
		return new LockStoreException(this.key, "ZooKeeper did not answer an acquisition sent on a release", cause);
	}

}
