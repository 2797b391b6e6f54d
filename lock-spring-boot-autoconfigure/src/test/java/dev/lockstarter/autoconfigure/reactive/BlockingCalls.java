package dev.lockstarter.autoconfigure.reactive;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import reactor.blockhound.BlockHound;

/**
 * BlockHound, installed once per test JVM, recording every blocking call made on a thread
 * that must not block (Reactor's parallel and single schedulers, Netty event loops:
 * Reactor Netty's and Lettuce's) instead of only throwing in that thread, where a test
 * might never see it.
 * <p>
 * Allowed, because they do not wait for anything that another thread must do:
 * <ul>
 * <li>{@code OwnerTokens.next} (the starter) and {@code UUID.randomUUID} (the test
 * application's user ids): both draw from a {@code SecureRandom}, which may read
 * {@code /dev/urandom}; that read never waits on Linux once the kernel's pool is
 * initialized.</li>
 * <li>Jackson's {@code DeserializerCache._createAndCacheValueDeserializer}: WebFlux's
 * JSON decoder builds the deserializer of a type once, under a lock that guards only that
 * CPU-bound construction; simultaneous first requests wait for it once.</li>
 * <li>Netty's {@code AdaptivePoolingAllocator$MagazineGroup.tryExpandMagazines} and
 * {@code AdaptivePoolingAllocator$Magazine.free}: the buffer allocator adds or frees a
 * magazine under a {@code StampedLock} held for a few instructions when threads contend
 * for buffers (JSON responses are encoded on the thread that completes them).</li>
 * <li>Lettuce's {@code SharedLock.incrementWriters}: every command written to a shared
 * connection counts itself as a writer under a {@code ReentrantLock} that is held for
 * that counter increment, or, while the connection connects or disconnects, for the
 * in-memory flush of the commands buffered meanwhile. Two event loops writing to the same
 * connection at once wait for each other that long. Lettuce's own reactive API, and so
 * Spring Data Redis's, takes the same path.</li>
 * </ul>
 * Nothing of the starter's own lock path is allowed: acquiring, waiting, renewing and
 * releasing must not block these threads at all.
 */
final class BlockingCalls {

	private static final List<String> detected = new CopyOnWriteArrayList<>();

	private static boolean installed;

	private BlockingCalls() {
	}

	static synchronized void install() {
		if (installed) {
			return;
		}
		BlockHound.install((builder) -> builder.allowBlockingCallsInside("dev.lockstarter.core.OwnerTokens", "next")
			.allowBlockingCallsInside("java.util.UUID", "randomUUID")
			.allowBlockingCallsInside("tools.jackson.databind.deser.DeserializerCache",
					"_createAndCacheValueDeserializer")
			.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$MagazineGroup", "tryExpandMagazines")
			.allowBlockingCallsInside("io.netty.buffer.AdaptivePoolingAllocator$Magazine", "free")
			.allowBlockingCallsInside("io.lettuce.core.protocol.SharedLock", "incrementWriters")
			.blockingMethodCallback((method) -> {
				StackTraceElement[] stack = new Throwable().getStackTrace();
				if (idleSchedulerWorker(stack)) {
					return;
				}
				StringBuilder description = new StringBuilder(method + " on " + Thread.currentThread().getName());
				for (StackTraceElement element : stack) {
					description.append("\n\tat ").append(element);
				}
				detected.add(description.toString());
			}));
		installed = true;
	}

	/**
	 * Whether a scheduler's worker waits for its next task. Reactor allows that
	 * ({@code DelayedWorkQueue.take}), but BlockHound sees the allowance only in calls
	 * made after it was installed: a worker that an earlier test of the same JVM started,
	 * and that was already waiting inside {@code take}, would be reported when it parks
	 * again in that same call.
	 */
	private static boolean idleSchedulerWorker(StackTraceElement[] stack) {
		for (StackTraceElement element : stack) {
			if (element.getClassName().equals("java.util.concurrent.ScheduledThreadPoolExecutor$DelayedWorkQueue")
					&& element.getMethodName().equals("take")) {
				return true;
			}
		}
		return false;
	}

	static List<String> detected() {
		return List.copyOf(detected);
	}

	static void clear() {
		detected.clear();
	}

}
