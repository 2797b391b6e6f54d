package dev.lockstarter.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Threads of the harness: daemons (so that a stuck scenario never keeps the build's JVM
 * alive), and child processes started side by side.
 */
final class Threads {

	private Threads() {
	}

	static Thread daemon(Runnable task, String name) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		thread.start();
		return thread;
	}

	/**
	 * Start several child processes at once, each on its own thread, and add each to a
	 * list as soon as it is ready.
	 * @param <T> what a start returns
	 * @param count how many to start
	 * @param start starts one and waits until it is ready
	 * @param started where each one goes
	 * @param name the starter threads' name
	 * @throws RuntimeException the first start's failure, once every start has ended
	 */
	static <T> void startAll(int count, Supplier<T> start, List<T> started, String name) {
		List<Thread> starters = new ArrayList<>();
		List<RuntimeException> failures = new CopyOnWriteArrayList<>();
		for (int i = 0; i < count; i++) {
			starters.add(daemon(() -> {
				try {
					started.add(start.get());
				}
				catch (RuntimeException ex) {
					failures.add(ex);
				}
			}, name));
		}
		for (Thread starter : starters) {
			try {
				starter.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
		if (!failures.isEmpty()) {
			throw failures.get(0);
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
