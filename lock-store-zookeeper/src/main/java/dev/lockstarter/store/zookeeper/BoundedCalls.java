package dev.lockstarter.store.zookeeper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.KeeperException.Code;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;

/**
 * Calls to ZooKeeper through Curator's background operations, each bounded by the
 * deadline of the store operation it serves, whatever Curator's retry policy does.
 * <p>
 * An answer that says the connection or the session was lost (the leader died, an
 * election runs, the client moves to another server) is retried after a short pause until
 * the deadline; any call may thus be sent again after it was applied, and the store's
 * operations are written so that a repeat is recognised (the owner token in the data, the
 * node's version). Past the deadline, or on any other unexpected answer, a
 * {@link LockStoreException} is thrown.
 */
final class BoundedCalls {

	private static final long RETRY_PAUSE_MILLIS = 50;

	private static final Set<Code> RETRIED = EnumSet.of(Code.CONNECTIONLOSS, Code.OPERATIONTIMEOUT, Code.SESSIONEXPIRED,
			Code.SESSIONMOVED, Code.REQUESTTIMEOUT, Code.NOTREADONLY, Code.THROTTLEDOP);

	private final Duration timeout;

	BoundedCalls(Duration timeout) {
		this.timeout = timeout;
	}

	Duration timeout() {
		return this.timeout;
	}

	/**
	 * Return the deadline of a store operation that starts now.
	 * @return the deadline, in {@link System#nanoTime()}
	 */
	long deadline() {
		return System.nanoTime() + this.timeout.toNanos();
	}

	/**
	 * Run one ZooKeeper call, retrying it after a lost connection until the deadline.
	 * @param operation what the store is doing, for the exception's message
	 * @param key the lock's key, for the exception
	 * @param deadline the deadline from {@link #deadline()}
	 * @param call starts the background call with the given callback
	 * @param expected the answers the caller handles, besides {@link Code#OK}
	 * @return the answer: {@link Code#OK} or one of {@code expected}
	 * @throws LockStoreException past the deadline, or on another answer
	 */
	CuratorEvent call(String operation, String key, long deadline, BackgroundCall call, Code... expected) {
		while (true) {
			CuratorEvent event = await(operation, key, deadline, call);
			Code code = Code.get(event.getResultCode());
			if (code == Code.OK || contains(expected, code)) {
				return event;
			}
			if (!RETRIED.contains(code)) {
				throw refused(operation, key, event, code);
			}
			long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
			if (left <= 0) {
				throw timedOut(operation, key, null);
			}
			pause(operation, key, Math.min(RETRY_PAUSE_MILLIS, left));
		}
	}

	/**
	 * Run several calls at once, each answered as {@link #call} answers it: a call whose
	 * answer says the connection was lost is run again on its own, retried until the
	 * deadline.
	 * @param operation what the store is doing, for the exception's message
	 * @param key the lock's key, for the exception
	 * @param deadline the deadline from {@link #deadline()}
	 * @param calls each starts one background call with the given callback
	 * @param expected the answers the caller handles, besides {@link Code#OK}
	 * @return the answers, in the order of the calls
	 * @throws LockStoreException past the deadline, or on another answer
	 */
	List<CuratorEvent> callAll(String operation, String key, long deadline, List<BackgroundCall> calls,
			Code... expected) {
		List<CompletableFuture<CuratorEvent>> answers = new ArrayList<>(calls.size());
		for (BackgroundCall call : calls) {
			answers.add(start(call));
		}
		List<CuratorEvent> events = new ArrayList<>(calls.size());
		for (int i = 0; i < calls.size(); i++) {
			CuratorEvent event = answer(operation, key, deadline, answers.get(i));
			Code code = Code.get(event.getResultCode());
			if (code == Code.OK || contains(expected, code)) {
				events.add(event);
			}
			else if (RETRIED.contains(code)) {
				events.add(call(operation, key, deadline, calls.get(i), expected));
			}
			else {
				throw refused(operation, key, event, code);
			}
		}
		return events;
	}

	private static LockStoreException refused(String operation, String key, CuratorEvent event, Code code) {
		return new LockStoreException(key,
				"ZooKeeper refused to " + operation + ": " + code + " (" + event.getPath() + ")", null);
	}

	LockStoreException timedOut(String operation, String key, @Nullable Throwable cause) {
		return new LockStoreException(key, "ZooKeeper did not " + operation + " within " + this.timeout.toMillis()
				+ " ms (lock.zookeeper.timeout)", cause);
	}

	private CuratorEvent await(String operation, String key, long deadline, BackgroundCall call) {
		return answer(operation, key, deadline, start(call));
	}

	private static CompletableFuture<CuratorEvent> start(BackgroundCall call) {
		CompletableFuture<CuratorEvent> answer = new CompletableFuture<>();
		try {
			call.start((client, event) -> answer.complete(event));
		}
		catch (Exception ex) {
			answer.completeExceptionally(ex);
		}
		return answer;
	}

	private CuratorEvent answer(String operation, String key, long deadline, CompletableFuture<CuratorEvent> answer) {
		try {
			return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
		}
		catch (TimeoutException ex) {
			throw timedOut(operation, key, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockStoreException(key, "Interrupted while waiting for ZooKeeper to " + operation, ex);
		}
		catch (ExecutionException ex) {
			throw new LockStoreException(key, "ZooKeeper failed to " + operation, ex.getCause());
		}
		catch (Exception ex) {
			throw new LockStoreException(key, "ZooKeeper failed to " + operation, ex);
		}
	}

	private static void pause(String operation, String key, long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new LockStoreException(key, "Interrupted while waiting for ZooKeeper to " + operation, ex);
		}
	}

	private static boolean contains(Code[] codes, Code code) {
		for (Code candidate : codes) {
			if (candidate == code) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Starts one background call of Curator.
	 */
	@FunctionalInterface
	interface BackgroundCall {

		void start(BackgroundCallback callback) throws Exception;

	}

	/**
	 * Return the index of the operation that made a {@code multi} fail: ZooKeeper answers
	 * {@code OK} for the operations before it and {@code RUNTIMEINCONSISTENCY} for those
	 * after.
	 */
	static int failedOperation(@Nullable List<CuratorTransactionResult> results) {
		if (results != null) {
			for (int i = 0; i < results.size(); i++) {
				int error = results.get(i).getError();
				if (error != Code.OK.intValue() && error != Code.RUNTIMEINCONSISTENCY.intValue()) {
					return i;
				}
			}
		}
		return -1;
	}

}
