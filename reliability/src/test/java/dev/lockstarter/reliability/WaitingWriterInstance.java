package dev.lockstarter.reliability;

import java.io.PrintStream;
import java.time.Duration;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;

/**
 * A writer for {@link KilledWaitingWriterTests}, in a JVM of its own: it opens a store (a
 * {@link Backend} name and its address, see {@link WorkerStores#open}), prints
 * {@value Worker#READY}, then asks for the write lock of a key with the time-to-live and
 * the wait time its arguments give, and waits, until the test kills it.
 * <p>
 * Arguments: the backend, the address, the key, the time-to-live and the wait time in
 * milliseconds.
 */
public final class WaitingWriterInstance {

	private WaitingWriterInstance() {
	}

	public static void main(String[] args) throws Exception {
		PrintStream out = System.out;
		System.setOut(System.err);
		WorkerStores.Opened opened = WorkerStores.open(Backend.valueOf(args[0]), args[1], KilledWaitingWriterTests.TTL);
		LockTemplate locks = new LockTemplate(opened.store(), KilledWaitingWriterTests.PREFIX);
		LockOptions options = LockOptions.ttl(Duration.ofMillis(Long.parseLong(args[3])))
			.withKind(LockKind.WRITE)
			.withWaitTime(Duration.ofMillis(Long.parseLong(args[4])));
		out.println(Worker.READY);
		out.flush();
		LockAttempt attempt = locks.tryAcquire(args[2], options);
		out.println("WRITER " + attempt.isAcquired());
		out.flush();
		locks.destroy();
		opened.resources().close();
		System.exit(0);
	}

}
