package dev.lockstarter.docs.keys;

import dev.lockstarter.annotation.ExclusiveRequest;
import org.springframework.stereotype.Service;

// tag::service[]
@Service
public class RegistrationService {

	private final Users users;

	private final Accounts accounts;

	public RegistrationService(Users users, Accounts accounts) {
		this.users = users;
		this.accounts = accounts;
	}

	@ExclusiveRequest(key = "#userName")
	public User register(String userName) {
		return this.users.save(new User(userName));
	}

	@ExclusiveRequest(name = "account", key = { "#from.id", "#to.id" }, eachKey = true, ttl = "10s",
			conflictStatus = 422)
	public void transfer(Account from, Account to, long amount) {
		this.accounts.move(from, to, amount);
	}

}
// end::service[]
