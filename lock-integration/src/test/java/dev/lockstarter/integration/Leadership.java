package dev.lockstarter.integration;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What one member of a leader election was told, in order: {@value #GRANTED} and
 * {@value #REVOKED}, as its {@code LockRegistryLeaderInitiator} published them, and
 * whether its last attempt to lead failed ({@value #FAILED}), which it publishes at every
 * failed attempt.
 */
final class Leadership {

	static final String GRANTED = "granted";

	static final String REVOKED = "revoked";

	static final String FAILED = "failed";

	private final List<String> events = new CopyOnWriteArrayList<>();

	private volatile String last = "";

	void record(String event) {
		if (!event.equals(FAILED)) {
			this.events.add(event);
		}
		this.last = event;
	}

	/** Whether the last event was a grant. */
	boolean isLeader() {
		return this.last.equals(GRANTED);
	}

	/** Whether the member tries to lead: its last attempt failed. */
	boolean isContending() {
		return this.last.equals(FAILED);
	}

	@Override
	public String toString() {
		return this.events + ((this.last.equals(FAILED)) ? " contending" : "");
	}

}
