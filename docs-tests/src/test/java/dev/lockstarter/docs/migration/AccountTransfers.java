package dev.lockstarter.docs.migration;

import java.time.Duration;
import java.util.List;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.key.LockKeys;
import org.springframework.stereotype.Service;

/**
 * Redisson's {@code RFencedLock} and {@code RedissonMultiLock} call sites rewritten with
 * {@link LockOperations}.
 */
@Service
public class AccountTransfers {

	private final LockOperations locks;

	private final Accounts accounts;

	AccountTransfers(LockOperations locks, Accounts accounts) {
		this.locks = locks;
		this.accounts = accounts;
	}

	// tag::fencing[]
	public void credit(String accountId, long amount) {
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(10)).withWaitTime(Duration.ofSeconds(2));
		try (Lease lease = this.locks.acquire(LockKeys.of("account", accountId), options)) {
			this.accounts.credit(accountId, amount, lease.fencingToken());
		}
	}
	// end::fencing[]

	// tag::several-keys[]
	public void transfer(String from, String to, long amount) {
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(10)).withWaitTime(Duration.ofSeconds(2));
		try (Lease lease = this.locks.acquire(List.of(LockKeys.of("account", from), LockKeys.of("account", to)),
				options)) {
			this.accounts.move(from, to, amount);
		} // all keys or none, taken in one global order
	}
	// end::several-keys[]

}
