package dev.lockstarter.docs.migration;

import java.time.Duration;
import java.util.Optional;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.key.LockKeys;
import org.springframework.stereotype.Service;

/**
 * Redisson {@code RLock} call sites rewritten with {@link LockOperations}.
 */
@Service
public class InvoiceSettlement {

	private final LockOperations locks;

	private final Invoices invoices;

	InvoiceSettlement(LockOperations locks, Invoices invoices) {
		this.locks = locks;
		this.invoices = invoices;
	}

	// tag::wait-and-renew[]
	public void settle(String invoiceId) {
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(30)).withWaitTime(Duration.ofSeconds(5));
		try (Lease lease = this.locks.acquire(LockKeys.of("invoice", invoiceId), options)) {
			this.invoices.settle(invoiceId);
		} // LockConflictException if still held after 5 s; renewed while the block runs
	}
	// end::wait-and-renew[]

	// tag::fixed-lease[]
	public void remind(String invoiceId) {
		LockOptions options = LockOptions.ttl(Duration.ofSeconds(10))
			.withWaitTime(Duration.ofSeconds(5))
			.withRenewal(false);
		this.locks.execute(LockKeys.of("invoice", invoiceId), options, (lease) -> {
			this.invoices.sendReminder(invoiceId);
			return null;
		});
	}
	// end::fixed-lease[]

	// tag::try-once[]
	public Optional<Duration> archive(String invoiceId) {
		LockAttempt attempt = this.locks.tryAcquire(LockKeys.of("invoice", invoiceId), Duration.ofSeconds(30));
		if (!attempt.isAcquired()) {
			// busy: free again in at most this long
			return Optional.of(attempt.holderRemainingTtl());
		}
		try (Lease lease = attempt.lease()) {
			this.invoices.archive(invoiceId);
			return Optional.empty();
		}
	}
	// end::try-once[]

}
