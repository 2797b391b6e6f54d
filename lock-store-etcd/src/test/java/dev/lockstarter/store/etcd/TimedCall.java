package dev.lockstarter.store.etcd;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LockStoreException;

/**
 * The outcome of one store call and how long it took: its answer, or the
 * {@link LockStoreException} it failed with; any other failure is thrown.
 */
record TimedCall(String operation, @Nullable Object answer, @Nullable LockStoreException failure, Duration took) {

	static TimedCall of(String operation, Supplier<?> call) {
		long started = System.nanoTime();
		try {
			Object answer = call.get();
			return new TimedCall(operation, answer, null, Duration.ofNanos(System.nanoTime() - started));
		}
		catch (LockStoreException ex) {
			return new TimedCall(operation, null, ex, Duration.ofNanos(System.nanoTime() - started));
		}
	}

	static TimedCall run(String operation, Runnable call) {
		return of(operation, () -> {
			call.run();
			return "done";
		});
	}

}
