package dev.lockstarter.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.store.LogSafe;
import dev.lockstarter.store.MultiKeyLockStore;

/**
 * The {@link Lease} of {@link LockTemplate} on several keys: one {@link StoreLease} per
 * key, all with the same owner token, acquired together. Each part is renewed, listed and
 * reported lost on its own, so a renewal that finds one key gone reports that key; the
 * lease counts as held only while every part is. A release takes every part's
 * {@link StoreLease#guard guard}, in key order, and frees all keys in one store call
 * where the store can ({@link MultiKeyLockStore#releaseAll}).
 */
final class MultiStoreLease implements LossNotifyingLease {

	private static final Log logger = LogFactory.getLog(MultiStoreLease.class);

	private final StoreCapabilities store;

	private final List<StoreLease> parts;

	private final List<String> keys;

	MultiStoreLease(StoreCapabilities store, List<StoreLease> parts) {
		this.store = store;
		this.parts = List.copyOf(parts);
		this.keys = parts.stream().map(StoreLease::key).toList();
	}

	@Override
	public String key() {
		return this.keys.toString();
	}

	@Override
	public List<String> keys() {
		return this.keys;
	}

	@Override
	public long fencingToken() {
		return 0;
	}

	@Override
	public long fencingToken(String key) {
		for (StoreLease part : this.parts) {
			if (part.key().equals(key)) {
				return part.fencingToken();
			}
		}
		throw new IllegalArgumentException("Lease of " + this.keys + " does not hold key '" + key + "'");
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * Told once, of the first part found lost.
	 */
	@Override
	public void whenLost(Consumer<String> action) {
		AtomicBoolean told = new AtomicBoolean();
		for (StoreLease part : this.parts) {
			part.whenLost((reason) -> {
				if (told.compareAndSet(false, true)) {
					action.accept("key '" + part.key() + "': " + reason);
				}
			});
		}
	}

	@Override
	public boolean isHeld() {
		for (StoreLease part : this.parts) {
			if (!part.isHeld()) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Results belong to one key; a lease on several keys keeps none.
	 */
	@Override
	public boolean putResult(byte[] result, Duration ttl) {
		throw new UnsupportedOperationException("A lease on several keys " + this.keys + " keeps no results");
	}

	/**
	 * Extend every key, one after the other: {@code true} only if each was still owned.
	 */
	@Override
	public boolean extend(Duration ttl, Duration holdAtLeast) {
		LeaseTimes.checkExtension(ttl, holdAtLeast);
		boolean all = true;
		for (StoreLease part : this.parts) {
			all &= part.extend(ttl, holdAtLeast);
		}
		return all;
	}

	@Override
	public boolean release() {
		List<StoreLease> locked = new ArrayList<>(this.parts.size());
		try {
			for (StoreLease part : this.parts) {
				part.guard.lock();
				locked.add(part);
			}
			List<StoreLease> releasing = new ArrayList<>(this.parts.size());
			for (StoreLease part : this.parts) {
				// A part past its local deadline is lost, and its key freed, as a single
				// key's release does
				if (!part.loseIfPastDeadline() && part.beginRelease()) {
					releasing.add(part);
				}
			}
			if (releasing.isEmpty()) {
				return false;
			}
			boolean[] owned = releaseInStore(releasing);
			boolean all = releasing.size() == this.parts.size();
			for (int i = 0; i < releasing.size(); i++) {
				releasing.get(i).endRelease(owned[i], true);
				all &= owned[i];
			}
			return all;
		}
		finally {
			locked.forEach((part) -> part.guard.unlock());
		}
	}

	/**
	 * Release the parts in the store, or shorten them to their minimum hold time. A store
	 * failure ends every part still unanswered as not owned (it expires with its
	 * time-to-live) and is rethrown.
	 */
	private boolean[] releaseInStore(List<StoreLease> releasing) {
		List<String> storeKeys = releasing.stream().map(StoreLease::storeKey).toList();
		String token = releasing.get(0).token();
		long minimumHoldLeft = releasing.get(0).minimumHoldLeft();
		try {
			if (minimumHoldLeft > 0) {
				return this.store.store()
					.extendAll(storeKeys, releasing.stream().map(StoreLease::token).toList(),
							Duration.ofNanos(minimumHoldLeft));
			}
			MultiKeyLockStore multiKey = this.store.multiKey();
			if (multiKey != null) {
				return multiKey.releaseAll(storeKeys, token);
			}
		}
		catch (RuntimeException ex) {
			releasing.forEach((part) -> part.endRelease(false, false));
			releasing.clear();
			throw ex;
		}
		boolean[] owned = new boolean[releasing.size()];
		RuntimeException failure = null;
		for (int i = 0; i < releasing.size(); i++) {
			try {
				owned[i] = this.store.store().release(storeKeys.get(i), token);
			}
			catch (RuntimeException ex) {
				if (failure == null) {
					failure = ex;
				}
				else {
					failure.addSuppressed(ex);
				}
				releasing.get(i).endRelease(false, false);
				releasing.set(i, null);
			}
		}
		if (failure != null) {
			for (int i = 0; i < releasing.size(); i++) {
				if (releasing.get(i) != null) {
					releasing.get(i).endRelease(owned[i], true);
				}
			}
			releasing.clear();
			throw failure;
		}
		return owned;
	}

	@Override
	public void close() {
		try {
			release();
		}
		catch (LockStoreException ex) {
			logger.warn("Failed to release the locks on " + this.keys.stream().map(LogSafe::key).toList()
					+ "; they expire at the end of their time-to-live", ex);
		}
	}

	@Override
	public String toString() {
		return "Lease" + this.keys + (isHeld() ? "[HELD]" : "[NOT HELD]");
	}

}
