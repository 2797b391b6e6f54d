package dev.lockstarter.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.observation.DefaultLockAcquireObservationConvention;
import dev.lockstarter.observation.LockAcquireContext;
import dev.lockstarter.observation.LockAcquireObservationConvention;
import dev.lockstarter.observation.LockObservationDocumentation;
import org.springframework.context.ApplicationEventPublisher;

/**
 * What one template tells about its locks: the {@code lock.acquire} observations, the
 * {@link LockListener listeners}, the {@link LockLostEvent} publisher, the register of
 * held leases and the hold times behind the retry-after estimate. Shared by the blocking
 * and the reactive template, so that both report alike.
 */
final class LockEvents {

	private static final Log logger = LogFactory.getLog(LockEvents.class);

	/** The name reported for locks whose options set none. */
	static final String UNNAMED = "unnamed";

	private final String storeName;

	private final List<LockListener> listeners = new CopyOnWriteArrayList<>();

	private final Set<StoreLease> held = ConcurrentHashMap.newKeySet();

	private final HoldTimes holdTimes = new HoldTimes();

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable LockAcquireObservationConvention observationConvention;

	private volatile @Nullable ApplicationEventPublisher eventPublisher;

	LockEvents(String storeName) {
		this.storeName = storeName;
	}

	/**
	 * Return the name under which a lock with these options is reported.
	 * @param options the options
	 * @return the options' name, or {@link #UNNAMED}
	 */
	static String nameOf(LockOptions options) {
		String name = options.getName();
		return (name != null) ? name : UNNAMED;
	}

	String storeName() {
		return this.storeName;
	}

	void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	void setObservationConvention(@Nullable LockAcquireObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	void setEventPublisher(ApplicationEventPublisher eventPublisher) {
		this.eventPublisher = eventPublisher;
	}

	void addListener(LockListener listener) {
		this.listeners.add(listener);
	}

	/** The held leases, concurrent: the renewer extends those it finds here. */
	Set<StoreLease> held() {
		return this.held;
	}

	/** A snapshot of the held leases, the longest held first. */
	List<HeldLock> heldLocks() {
		List<HeldLock> locks = new ArrayList<>(this.held);
		locks.sort(Comparator.comparing(HeldLock::acquiredAt));
		return locks;
	}

	HoldTimes holdTimes() {
		return this.holdTimes;
	}

	/**
	 * Start observing one acquisition.
	 * @param name the lock's name
	 * @param description the key, or the keys, as listeners are told
	 * @return the started acquisition, to finish once
	 */
	ObservedAcquisition startAcquisition(String name, String description) {
		Observation observation = LockObservationDocumentation.LOCK_ACQUIRE
			.observation(this.observationConvention, DefaultLockAcquireObservationConvention.INSTANCE,
					() -> new LockAcquireContext(name, this.storeName), this.observationRegistry)
			.start();
		return new ObservedAcquisition(this, observation, this.observationRegistry.isNoop(), name, description);
	}

	/** Whether any listener is told of finished acquisitions. */
	boolean hasListeners() {
		return !this.listeners.isEmpty();
	}

	/** Tell the listeners of a finished acquisition. */
	void acquisitionFinished(FinishedAttempt attempt) {
		notifyListeners((listener) -> listener.acquisitionFinished(attempt));
	}

	/** A lease was made: list it as held and tell the listeners. */
	void acquired(StoreLease lease) {
		this.held.add(lease);
		notifyListeners((listener) -> listener.acquired(lease));
	}

	/** A lease stopped being held, released or lost: forget it, note its hold time. */
	void finished(StoreLease lease) {
		if (this.held.remove(lease)) {
			this.holdTimes.released(lease.name(), lease.acquiredAtNanos());
		}
	}

	void released(StoreLease lease, boolean owned) {
		notifyListeners((listener) -> listener.released(lease, owned));
	}

	void renewed(StoreLease lease) {
		notifyListeners((listener) -> listener.renewed(lease));
	}

	void lost(StoreLease lease, String reason) {
		notifyListeners((listener) -> listener.lost(lease, reason));
		ApplicationEventPublisher publisher = this.eventPublisher;
		if (publisher != null) {
			publisher.publishEvent(new LockLostEvent(lease.key(), reason));
		}
	}

	private void notifyListeners(Consumer<LockListener> call) {
		if (this.listeners.isEmpty()) {
			return;
		}
		for (LockListener listener : this.listeners) {
			try {
				call.accept(listener);
			}
			catch (RuntimeException ex) {
				logger.warn("Lock listener " + listener + " failed", ex);
			}
		}
	}

}
