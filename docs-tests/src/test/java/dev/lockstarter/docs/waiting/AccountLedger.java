package dev.lockstarter.docs.waiting;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.interceptor.ExclusiveRequestContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/**
 * Guards a write with the fencing token of the current lock.
 */
@Service
public class AccountLedger {

	private final JdbcTemplate jdbc;

	public AccountLedger(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	// tag::fencing[]
	@ExclusiveRequest(key = "#accountId")
	public void credit(String accountId, long amount) {
		long fence = ExclusiveRequestContext.currentFencingToken().orElseThrow();
		// a stale holder's write updates nothing
		this.jdbc.update("update account set balance = balance + ?, fence = ? where id = ? and fence < ?", amount,
				fence, accountId, fence);
	}
	// end::fencing[]

}
