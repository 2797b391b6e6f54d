package dev.lockstarter.docs.migration;

/**
 * A customer of the migration examples.
 */
public class Customer {

	private final String id;

	public Customer(String id) {
		this.id = id;
	}

	public String getId() {
		return this.id;
	}

}
