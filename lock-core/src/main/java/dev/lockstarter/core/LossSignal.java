package dev.lockstarter.core;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.LogSafe;

/**
 * The actions a {@link StoreLease} tells of its loss ({@link LossNotifyingLease}): each
 * once, with the reason, on the thread that found the loss; an action added after the
 * loss is told at once, and one added to a released lease never.
 */
final class LossSignal {

	private static final Log logger = LogFactory.getLog(LossSignal.class);

	private final String key;

	/** The actions to tell, none until one is added; guarded by this signal. */
	private @Nullable List<Consumer<String>> actions;

	/**
	 * Why the lease stopped guarding its work before its release; guarded by this signal.
	 */
	private @Nullable String reason;

	LossSignal(String key) {
		this.key = key;
	}

	/**
	 * Add an action, or tell it at once if the loss was told already.
	 * @param action the action
	 * @param released whether the lease was released, so that it is never lost
	 */
	void add(Consumer<String> action, boolean released) {
		String told;
		synchronized (this) {
			told = this.reason;
			if (told == null) {
				if (!released) {
					if (this.actions == null) {
						this.actions = new ArrayList<>(1);
					}
					this.actions.add(action);
				}
				return;
			}
		}
		action.accept(told);
	}

	/**
	 * Tell every action of the loss, the first time only.
	 * @param reason why the lease stopped guarding its work
	 */
	void tell(String reason) {
		List<Consumer<String>> told;
		synchronized (this) {
			if (this.reason != null) {
				return;
			}
			this.reason = reason;
			told = this.actions;
			this.actions = null;
		}
		if (told == null) {
			return;
		}
		for (Consumer<String> action : told) {
			try {
				action.accept(reason);
			}
			catch (RuntimeException ex) {
				logger.warn("An action told of the loss of lock '" + LogSafe.key(this.key) + "' failed", ex);
			}
		}
	}

}
