package dev.lockstarter.docs.programmatic;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.key.LockKeys;
import org.springframework.stereotype.Service;

/**
 * Locks taken through {@link LockOperations}, without the annotation.
 */
@Service
public class AccountLocks {

	private static final Logger log = LoggerFactory.getLogger(AccountLocks.class);

	private final LockOperations locks;

	private final UserService service;

	private final Accounts accounts;

	private final Payments payments;

	public AccountLocks(LockOperations locks, UserService service, Accounts accounts, Payments payments) {
		this.locks = locks;
		this.service = service;
		this.accounts = accounts;
		this.payments = payments;
	}

	public String basics(String id) {
		// tag::basics[]
		try (Lease lease = this.locks.acquire(LockKeys.of("user", id), Duration.ofSeconds(10))) {
			// at most one holder of "user:42" at a time, across all instances
			this.service.update(id);
		} // released here, owner-checked

		LockAttempt attempt = this.locks.tryAcquire(LockKeys.of("report", "daily"), Duration.ofMinutes(5));
		if (!attempt.isAcquired()) {
			log.info("Someone else is on it; free again in at most {}", attempt.holderRemainingTtl());
		}

		String result = this.locks.execute(LockKeys.of("user", id), Duration.ofSeconds(10),
				() -> this.service.update(id));
		// end::basics[]
		return result;
	}

	public Receipt options(String id, long amount) {
		// tag::options[]
		// Wait up to 5 s (or: .withRetries(3, Duration.ofMillis(200))), and hold at least
		// 2 s; renewal is on by default, .withRenewal(false) turns it off
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(10))
			.withWaitTime(Duration.ofSeconds(5))
			.withHoldAtLeast(Duration.ofSeconds(2));

		try (Lease lease = this.locks.acquire(LockKeys.of("account", id), options)) {
			// the token is 0 on a store that issues none: the ledger refuses 0
			this.accounts.update(id, amount, lease.fencingToken());
		}

		Receipt receipt = this.locks.execute(LockKeys.of("account", id), options,
				(lease) -> this.payments.charge(id, lease.fencingToken()));
		// end::options[]
		return receipt;
	}

	public Receipt multiKey(String from, String to, long amount, LockOptions options) {
		// tag::multi-key[]
		String fromKey = LockKeys.of("account", from);
		String toKey = LockKeys.of("account", to);
		try (Lease lease = this.locks.acquire(List.of(fromKey, toKey), options)) {
			this.accounts.move(from, to, amount, lease.fencingToken(fromKey), lease.fencingToken(toKey));
		} // one release frees both

		LockAttempt attempt = this.locks.tryAcquire(Set.of(LockKeys.of("account", "A"), LockKeys.of("account", "C")),
				Duration.ofSeconds(10));
		if (!attempt.isAcquired()) {
			// holds nothing
			log.info("{} is busy for at most {}", attempt.heldKey(), attempt.holderRemainingTtl());
		}

		Receipt receipt = this.locks.execute(List.of(LockKeys.of("account", "A"), LockKeys.of("account", "B")), options,
				(lease) -> this.accounts.transfer("A", "B", amount));
		// end::multi-key[]
		return receipt;
	}

}
