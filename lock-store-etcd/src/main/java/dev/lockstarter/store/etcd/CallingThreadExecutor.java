package dev.lockstarter.store.etcd;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An executor that runs each task in the thread that submits it, given to the jetcd
 * clients that {@link EtcdClients} builds.
 * <p>
 * jetcd hands every request to its executor before it sends it (the task that its retry
 * policy runs), and by default that is a thread pool of its own: each request then wakes
 * a pool thread, which passes the request on to the gRPC transport's event loop, while
 * the caller waits. The task only starts an asynchronous gRPC call and returns, so
 * running it in the caller's thread does the same work without that hand-off: an
 * uncontended acquire and release, two requests, wake two threads fewer. The answer still
 * arrives on the transport's event loop, and the caller still waits for it no longer than
 * the store's timeout. A retry that jetcd delays runs its task in the thread of the retry
 * policy's scheduler, which likewise only starts the call.
 * <p>
 * A client does not shut down an executor it was given; each builder gets an executor of
 * its own, which holds no thread, so nothing is left running when the client is closed.
 */
final class CallingThreadExecutor extends AbstractExecutorService {

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition idle = this.lock.newCondition();

	private int running;

	private boolean shutdown;

	@Override
	public void execute(Runnable task) {
		this.lock.lock();
		try {
			if (this.shutdown) {
				throw new RejectedExecutionException("The executor is shut down");
			}
			this.running++;
		}
		finally {
			this.lock.unlock();
		}
		try {
			task.run();
		}
		finally {
			this.lock.lock();
			try {
				if (--this.running == 0 && this.shutdown) {
					this.idle.signalAll();
				}
			}
			finally {
				this.lock.unlock();
			}
		}
	}

	@Override
	public void shutdown() {
		this.lock.lock();
		try {
			this.shutdown = true;
			if (this.running == 0) {
				this.idle.signalAll();
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Shut down; no task waits in a queue, so none is returned, and the tasks running are
	 * not interrupted: each runs in its caller's thread, which is not this executor's.
	 */
	@Override
	public List<Runnable> shutdownNow() {
		shutdown();
		return List.of();
	}

	@Override
	public boolean isShutdown() {
		this.lock.lock();
		try {
			return this.shutdown;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public boolean isTerminated() {
		this.lock.lock();
		try {
			return this.shutdown && this.running == 0;
		}
		finally {
			this.lock.unlock();
		}
	}

	@Override
	public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
		long remaining = unit.toNanos(timeout);
		this.lock.lock();
		try {
			while (!(this.shutdown && this.running == 0)) {
				if (remaining <= 0) {
					return false;
				}
				remaining = this.idle.awaitNanos(remaining);
			}
			return true;
		}
		finally {
			this.lock.unlock();
		}
	}

}
