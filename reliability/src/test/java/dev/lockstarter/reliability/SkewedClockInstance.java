package dev.lockstarter.reliability;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * One instance of an application for {@link SkewedClockInstancesTests}, in a JVM of its
 * own (whose wall clock the test may set with libfaketime): {@link LockTemplate} on a
 * store, time-to-live {@link SkewedClockInstancesTests#TTL}, renewal on. It reads
 * commands on standard input, one at a time, and answers on standard output with lines
 * that start with {@value #ANSWER} (anything else a library prints goes to standard
 * error). Times are {@link System#nanoTime()}, the machine's monotonic clock, which the
 * test compares with its own.
 * <ul>
 * <li>{@code clock}: {@code CLOCK wallMillis nanos};</li>
 * <li>{@code hold KEY MILLIS}: take the lock (waiting up to 2 × TTL), answer
 * {@code HELD nanos}, hold it for that long, answer {@code RELEASED nanos held} (the time
 * the hold ended, and whether the lease still held the lock then), release it; or
 * {@code NOT_ACQUIRED};</li>
 * <li>{@code try KEY MILLIS}: try the lock without waiting, every 100 ms for that long,
 * releasing it at once whenever it is granted: {@code TRIED attempts nanos,nanos...} (the
 * times it was granted, {@code -} if never);</li>
 * <li>{@code take KEY}: take the lock, waiting up to 2 × TTL, and release it:
 * {@code TOOK acquired waitedMillis}.</li>
 * </ul>
 * Arguments: a {@link Backend} name (see {@link WorkerStores#open}) or
 * {@code WALL_CLOCK_EXPIRY} ({@link BrokenLockStore} on a Redis), and the store's
 * address. Prints {@value Worker#READY} once the store is open.
 */
public final class SkewedClockInstance {

	static final String ANSWER = "@@ ";

	/**
	 * The longest a store call waits for an answer: the time-to-live, since a later
	 * answer makes no lease. Not the workers' 2 s, which a busy machine's etcd took
	 * longer than; these instances test clocks, not a store's latency.
	 */
	static final Duration STORE_TIMEOUT = SkewedClockInstancesTests.TTL;

	private SkewedClockInstance() {
	}

	public static void main(String[] args) throws Exception {
		PrintStream answers = System.out;
		System.setOut(System.err);
		AutoCloseable resources;
		LockTemplate locks;
		if (BrokenLockStore.Flaw.WALL_CLOCK_EXPIRY.name().equals(args[0])) {
			String[] hostPort = args[1].split(":");
			LettuceConnectionFactory connections = Oracle.connectionFactory(hostPort[0], Integer.parseInt(hostPort[1]),
					STORE_TIMEOUT);
			resources = connections::destroy;
			locks = new LockTemplate(
					new BrokenLockStore(BrokenLockStore.Flaw.WALL_CLOCK_EXPIRY, new StringRedisTemplate(connections)),
					"skew:");
		}
		else {
			WorkerStores.Opened opened = WorkerStores.open(Backend.valueOf(args[0]), args[1], STORE_TIMEOUT);
			resources = opened.resources();
			locks = new LockTemplate(opened.store(), "skew:");
		}
		LockOptions options = LockOptions.ttl(SkewedClockInstancesTests.TTL);
		Duration wait = SkewedClockInstancesTests.TTL.multipliedBy(2);
		answers.println(Worker.READY);
		answers.flush();
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = commands.readLine(); line != null && !line.equals("quit"); line = commands.readLine()) {
			String[] command = line.split(" ");
			String answer;
			try {
				answer = switch (command[0]) {
					case "clock" -> "CLOCK " + System.currentTimeMillis() + " " + System.nanoTime();
					case "hold" ->
						hold(locks, options.withWaitTime(wait), command[1], Long.parseLong(command[2]), answers);
					case "try" -> tryRepeatedly(locks, options, command[1], Long.parseLong(command[2]));
					case "take" -> take(locks, options.withWaitTime(wait), command[1]);
					default -> "ERROR unknown command " + line;
				};
			}
			catch (Exception ex) {
				ex.printStackTrace();
				answer = "ERROR " + ex;
			}
			answers.println(ANSWER + answer);
			answers.flush();
		}
		locks.destroy();
		resources.close();
		System.exit(0);
	}

	private static String hold(LockTemplate locks, LockOptions options, String key, long millis, PrintStream answers)
			throws InterruptedException {
		LockAttempt attempt = locks.tryAcquire(key, options);
		if (!attempt.isAcquired()) {
			return "NOT_ACQUIRED";
		}
		try (Lease lease = attempt.lease()) {
			long heldAt = System.nanoTime();
			answers.println(ANSWER + "HELD " + heldAt);
			answers.flush();
			Thread.sleep(millis);
			return "RELEASED " + System.nanoTime() + " " + lease.isHeld();
		}
	}

	private static String tryRepeatedly(LockTemplate locks, LockOptions options, String key, long millis)
			throws InterruptedException {
		long deadline = System.nanoTime() + millis * 1_000_000;
		int attempts = 0;
		List<String> granted = new ArrayList<>();
		while (System.nanoTime() - deadline < 0) {
			attempts++;
			LockAttempt attempt = locks.tryAcquire(key, options);
			if (attempt.isAcquired()) {
				granted.add(Long.toString(System.nanoTime()));
				attempt.lease().close();
			}
			Thread.sleep(100);
		}
		return "TRIED " + attempts + " " + (granted.isEmpty() ? "-" : String.join(",", granted));
	}

	private static String take(LockTemplate locks, LockOptions options, String key) {
		long started = System.nanoTime();
		LockAttempt attempt = locks.tryAcquire(key, options);
		long waited = (System.nanoTime() - started) / 1_000_000;
		if (attempt.isAcquired()) {
			attempt.lease().close();
		}
		return "TOOK " + attempt.isAcquired() + " " + waited;
	}

}
