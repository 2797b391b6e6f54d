package dev.lockstarter.docs.adapters;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.key.LockKeys;

/**
 * A {@code java.util.concurrent.locks.Lock} from {@code LockOperations}, handed to code
 * that takes one.
 */
public class StockCounter {

	private final LockOperations locks;

	StockCounter(LockOperations locks) {
		this.locks = locks;
	}

	// tag::java-lock[]
	public void reserve(String sku, int quantity, Stock stock) throws InterruptedException {
		Lock lock = this.locks.lock(LockKeys.of("stock", sku), LockOptions.ttl(Duration.ofSeconds(30)));
		if (!lock.tryLock(5, TimeUnit.SECONDS)) {
			throw new IllegalStateException("stock of " + sku + " is busy");
		}
		try {
			stock.take(sku, quantity);
		}
		finally {
			lock.unlock();
		}
	}
	// end::java-lock[]

	/**
	 * The guarded resource of the example.
	 */
	public interface Stock {

		void take(String sku, int quantity);

	}

}
