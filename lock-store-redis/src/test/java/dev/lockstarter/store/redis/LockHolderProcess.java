package dev.lockstarter.store.redis;

import java.time.Duration;

import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A separate JVM that acquires one lock, with renewal, prints {@value #ACQUIRED}, and
 * holds it until it is killed. Arguments: Redis host, port, store key, time-to-live in
 * milliseconds.
 */
public final class LockHolderProcess {

	static final String ACQUIRED = "ACQUIRED";

	private LockHolderProcess() {
	}

	public static void main(String[] args) throws InterruptedException {
		LettuceConnectionFactory connectionFactory = RedisLockOperationsContractTests.connectionFactory(args[0],
				Integer.parseInt(args[1]));
		LockTemplate locks = new LockTemplate(new RedisLockStore(connectionFactory), "");
		locks.acquire(args[2], LockOptions.ttl(Duration.ofMillis(Long.parseLong(args[3]))));
		System.out.println(ACQUIRED);
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
