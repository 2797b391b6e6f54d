package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockListener;
import dev.lockstarter.result.ResultCodec;

/**
 * What blocking and reactive single-flight share: turning a holder's outcome into the
 * record kept next to the lock and back, the result's time-to-live, the reads of kept
 * results that one release's followers share, and the messages and notifications around
 * them.
 */
final class SharedResults {

	/**
	 * The time-to-live of shared results when neither the method nor the application sets
	 * one.
	 */
	static final Duration DEFAULT_TTL = Duration.ofSeconds(10);

	private static final Log logger = LogFactory.getLog(SharedResults.class);

	private final Supplier<@Nullable ResultCodec> codec;

	private final Supplier<Duration> defaultTtl;

	private final Supplier<@Nullable LockListener> listener;

	private final KeptResultReads reads = new KeptResultReads();

	SharedResults(Supplier<@Nullable ResultCodec> codec, Supplier<Duration> defaultTtl,
			Supplier<@Nullable LockListener> listener) {
		this.codec = codec;
		this.defaultTtl = defaultTtl;
		this.listener = listener;
	}

	/** Reads of kept results shared by the followers that one release wakes. */
	KeptResultReads reads() {
		return this.reads;
	}

	/**
	 * Return the record of a value the holder returned.
	 * @throws IllegalStateException if the value cannot be serialized
	 */
	private SharedResult valueRecord(ResultSharing sharing, @Nullable Object value) {
		if (sharing.voidResult()) {
			return SharedResult.completion();
		}
		try {
			return SharedResult.value(codec(sharing).encode(value, sharing.resultType()));
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("The result of " + sharing.describeMethod()
					+ " cannot be shared with the callers waiting for it: it cannot be serialized as "
					+ sharing.resultType().getTypeName() + " (" + ex.getMessage() + ")", ex);
		}
	}

	/**
	 * Return what a holder keeps for the value it returned: the value's record, or, when
	 * the value cannot be serialized, the record of that failure, which the holder then
	 * signals too.
	 */
	ValueToKeep valueToKeep(ResultSharing sharing, @Nullable Object value) {
		try {
			return new ValueToKeep(valueRecord(sharing, value), null);
		}
		catch (IllegalStateException unserializable) {
			return new ValueToKeep(SharedFailures.record(unserializable), unserializable);
		}
	}

	/**
	 * Return the record of a failure of the holder, or {@code null} when a waiting caller
	 * takes over instead.
	 */
	@Nullable SharedResult failureRecord(ResultSharing sharing, Throwable failure) {
		return sharing.takeOverOnFailure() ? null : SharedFailures.record(failure);
	}

	/**
	 * Read the record kept for a key; {@code null} if there is none, or if it is in
	 * another format (logged: the caller then runs the method).
	 */
	@Nullable SharedResult read(byte @Nullable [] bytes, ResultSharing sharing) {
		try {
			return SharedResult.fromBytes(bytes);
		}
		catch (IllegalArgumentException ex) {
			logger.warn("Ignoring a result kept for " + sharing.describeMethod() + " in another format ("
					+ ex.getMessage() + "); running the method");
			return null;
		}
	}

	/**
	 * Return a record if it was kept after the caller arrived: its id differs from the
	 * one the caller noted first.
	 */
	@Nullable SharedResult keptSince(byte @Nullable [] bytes, ResultSharing sharing, @Nullable String seen) {
		SharedResult found = read(bytes, sharing);
		return (found != null && !found.id().equals(seen)) ? found : null;
	}

	@Nullable Object value(SharedResult found, ResultSharing sharing) {
		try {
			return codec(sharing).decode(found.valueBytes(), sharing.resultType());
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("The result shared for " + sharing.describeMethod()
					+ " cannot be deserialized as " + sharing.resultType().getTypeName() + ": " + ex.getMessage(), ex);
		}
	}

	Throwable failure(SharedResult found, ResultSharing sharing, String name) {
		return SharedFailures.recreate(found, sharing.method(), name);
	}

	Duration ttl(ResultSharing sharing) {
		Duration ttl = sharing.resultTtl();
		return (ttl != null) ? ttl : this.defaultTtl.get();
	}

	/** Note that a caller returns the result another caller kept. */
	void shared(String name, Observation observation) {
		RequestObservations.outcome(observation, "shared");
		LockListener listener = this.listener.get();
		if (listener != null) {
			listener.resultShared(name);
		}
	}

	static void logLostBeforeKept(ResultSharing sharing) {
		logger.warn("The lock of " + sharing.describeMethod() + " was lost before its result could be kept; "
				+ "a waiting caller will run the method again");
	}

	static void logNotKept(ResultSharing sharing, Throwable failure) {
		logger.warn("The result of " + sharing.describeMethod() + " could not be kept for the callers waiting "
				+ "for it; one of them will run the method again", failure);
	}

	private ResultCodec codec(ResultSharing sharing) {
		ResultCodec codec = this.codec.get();
		if (codec == null) {
			throw new IllegalStateException(
					sharing.describeMethod() + " shares its result, but no ResultCodec is configured");
		}
		return codec;
	}

	/**
	 * The record a holder keeps for its value, and the failure it signals when the value
	 * could not be serialized.
	 */
	record ValueToKeep(SharedResult record, @Nullable IllegalStateException unserializable) {

	}

}
