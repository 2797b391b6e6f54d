package dev.lockstarter.store.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.ReleaseListeners;
import dev.lockstarter.store.ReleaseNotifyingLockStore;

/**
 * The release notifications of the etcd store: one watch on the prefix of its lock keys,
 * opened when the first waiter subscribes and kept until the store closes, that calls the
 * listeners of a key whenever etcd deletes it (a release, or the end of its lease). Puts
 * are not releases (an acquisition, a takeover, an extension) and wake no one; a lock
 * that merely expires is never announced, and its waiters find it free by polling.
 * <p>
 * jetcd resumes a watch itself after a broken connection. When it gives up instead (the
 * watch fails or completes), the watch is opened again after {@link #REOPEN_DELAY}; a
 * release that passed meanwhile is found by the waiters' polling.
 */
final class EtcdReleaseWatch implements AutoCloseable {

	static final Duration REOPEN_DELAY = Duration.ofMillis(200);

	private static final Log logger = LogFactory.getLog(EtcdReleaseWatch.class);

	private final Watch watch;

	private final ByteSequence prefix;

	private final ReleaseListeners listeners = new ReleaseListeners();

	private Watch.@Nullable Watcher watcher;

	private boolean closed;

	EtcdReleaseWatch(Watch watch, ByteSequence prefix) {
		this.watch = watch;
		this.prefix = prefix;
	}

	ReleaseNotifyingLockStore.Subscription subscribe(ByteSequence lockKey, Runnable listener) {
		ReleaseNotifyingLockStore.Subscription subscription = this.listeners.add(id(lockKey), listener);
		open();
		return subscription;
	}

	@Override
	public synchronized void close() {
		this.closed = true;
		Watch.@Nullable Watcher current = this.watcher;
		this.watcher = null;
		if (current != null) {
			current.close();
		}
	}

	private synchronized void open() {
		if (this.watcher != null || this.closed) {
			return;
		}
		WatchOption option = WatchOption.builder().isPrefix(true).withNoPut(true).build();
		this.watcher = this.watch.watch(this.prefix, option, Watch.listener(this::deliver, this::failed, this::ended));
	}

	private void deliver(WatchResponse response) {
		for (WatchEvent event : response.getEvents()) {
			if (event.getEventType() == WatchEvent.EventType.DELETE) {
				this.listeners.released(id(event.getKeyValue().getKey()));
			}
		}
	}

	private void failed(Throwable failure) {
		if (logger.isDebugEnabled()) {
			logger.debug("etcd release watch on '" + this.prefix + "' failed; opening it again", failure);
		}
		reopenLater();
	}

	private void ended() {
		reopenLater();
	}

	private void reopenLater() {
		synchronized (this) {
			if (this.closed) {
				return;
			}
			Watch.@Nullable Watcher broken = this.watcher;
			this.watcher = null;
			if (broken != null) {
				broken.close();
			}
		}
		CompletableFuture.runAsync(this::open,
				CompletableFuture.delayedExecutor(REOPEN_DELAY.toMillis(), TimeUnit.MILLISECONDS));
	}

	/**
	 * Return the name under which the listeners of a key are kept: its bytes, one
	 * character each, so that any key maps to one name.
	 */
	static String id(ByteSequence lockKey) {
		return new String(lockKey.getBytes(), StandardCharsets.ISO_8859_1);
	}

}
