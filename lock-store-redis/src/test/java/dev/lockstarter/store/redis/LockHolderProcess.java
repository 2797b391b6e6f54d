package dev.lockstarter.store.redis;

import java.time.Duration;

import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate JVM that acquires one lock, with renewal, prints {@value #ACQUIRED}, and
 * holds it until it is killed. Arguments: Redis host, port, store key, time-to-live in
 * milliseconds, and optionally a number of permits to take one of, rather than the mutex.
 */
public final class LockHolderProcess {

	static final String ACQUIRED = "ACQUIRED";

	private LockHolderProcess() {
	}

	public static void main(String[] args) throws InterruptedException {
		LettuceConnectionFactory connectionFactory = RedisLockOperationsContractTests.connectionFactory(args[0],
				Integer.parseInt(args[1]));
		RedisLockStore store = new RedisLockStore(connectionFactory);
		// A busy machine may take seconds to open the first connection of a new JVM
		store.setTimeout(Duration.ofSeconds(10));
		LockTemplate locks = new LockTemplate(store, "");
		LockOptions options = LockOptions.ttl(Duration.ofMillis(Long.parseLong(args[3])));
		if (args.length > 4) {
			options = options.withKind(LockKind.permits(Integer.parseInt(args[4])));
		}
		locks.acquire(args[2], options);
		System.out.println(ACQUIRED);
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
