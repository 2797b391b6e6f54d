package dev.lockstarter.docs.keys;

import java.util.List;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.stereotype.Service;

/**
 * Methods that lock one account each, or several at once.
 */
@Service
public class AccountService {

	private final Accounts accounts;

	public AccountService(Accounts accounts) {
		this.accounts = accounts;
	}

	// tag::each-key[]
	// locks account:A and account:B
	@ExclusiveRequest(name = "account", key = { "#from.id", "#to.id" }, eachKey = true, waitTime = "2s")
	public void transfer(Account from, Account to, long amount) {
		this.accounts.move(from, to, amount);
	}

	// one lock per id in the list
	@ExclusiveRequest(name = "account", key = "#ids", eachKey = true)
	public void close(List<String> ids) {
		ids.forEach(this.accounts::close);
	}

	// the same lock as account:A above
	@ExclusiveRequest(name = "account", key = "#id")
	public void credit(String id, long amount) {
		this.accounts.credit(id, amount);
	}
	// end::each-key[]

}
