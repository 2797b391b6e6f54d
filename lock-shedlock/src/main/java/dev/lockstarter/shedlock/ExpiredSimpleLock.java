package dev.lockstarter.shedlock;

import java.util.Optional;

import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * A ShedLock {@link SimpleLock} that had expired when it was handed out: the store
 * granted it, but confirmed the grant only after its {@code lockAtMostFor}. Its unlock
 * frees nothing, since the engine already releases the grant by its token, and its
 * extension answers empty, as the extension of any expired lock does.
 */
final class ExpiredSimpleLock extends AbstractSimpleLock {

	ExpiredSimpleLock(LockConfiguration lockConfiguration) {
		super(lockConfiguration);
	}

	@Override
	protected void doUnlock() {
	}

	@Override
	protected Optional<SimpleLock> doExtend(LockConfiguration newConfiguration) {
		return Optional.empty();
	}

}
