package dev.lockstarter.store.dynamodb;

/**
 * How a {@link DynamoDbLockStore} decides that a lock's time-to-live has passed, so that
 * another owner may take it over. All the clients of one table must use the same mode.
 *
 * @since 0.1.0
 */
public enum DynamoDbExpiry {

	/**
	 * The default: a contender takes a lock over only once it has seen the holder's item
	 * stay unchanged (the same owner and record version) for the holder's whole lease
	 * duration, counted on the contender's own monotonic clock. No wall clock decides
	 * expiry: clocks need only run at about the same rate (within about 1 % of each
	 * other), never agree. A contender that first sees a lock whose holder crashed waits
	 * one lease duration from that first sight.
	 */
	OBSERVED,

	/**
	 * Clock-dependent, opt-in: the item holds its expiry time on the writer's wall clock
	 * ({@code now + ttl}, epoch milliseconds), and a contender takes the lock over once
	 * its own wall clock has passed that time, in one conditional write
	 * ({@code attribute_not_exists(owner) OR expiresAt < :now}). Mutual exclusion then
	 * depends on the clients' wall clocks agreeing: a client whose clock runs ahead by
	 * some amount takes locks over that much early, and a client whose clock is behind
	 * writes locks that expire that much early for the others. Use it only where the
	 * clocks are kept synchronized well within the time-to-lives used.
	 */
	CLIENT_CLOCK

}
