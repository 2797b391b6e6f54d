package dev.lockstarter.test.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.jupiter.api.Assumptions;

import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockLostEvent;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyLockStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The templates a {@link LockOperationsContractTests} suite runs, created before each
 * test on the store under test: one on the store as it is and one on the store seen
 * without its {@link MultiKeyLockStore} ability, each recording the owner tokens it
 * draws, with the lost locks both report and an executor for waiters.
 */
final class TemplateUnderTest {

	/** A time-to-live that does not pass during a test. */
	static final Duration LONG_TTL = Duration.ofSeconds(30);

	private final ExecutorService executor = Executors.newCachedThreadPool();

	private final List<LockLostEvent> lostEvents = new CopyOnWriteArrayList<>();

	private final LockStore store;

	private final String prefix;

	private final TokenRecordingStore recording;

	private final LockTemplate locks;

	private final TokenRecordingStore genericRecording;

	private final LockTemplate genericLocks;

	private final List<LockTemplate> otherInstances = new CopyOnWriteArrayList<>();

	private final DeclaredFencing fencing;

	TemplateUnderTest(LockStore store, DeclaredFencing fencing) {
		this.store = store;
		this.fencing = fencing;
		this.prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8) + ":";
		this.recording = TokenRecordingStore.of(store);
		this.locks = template(this.recording);
		this.genericRecording = TokenRecordingStore.withoutMultiKey(store);
		this.genericLocks = template(this.genericRecording);
	}

	private LockTemplate template(TokenRecordingStore recording) {
		LockTemplate template = new LockTemplate(recording.store(), this.prefix);
		template.setApplicationEventPublisher((event) -> {
			if (event instanceof LockLostEvent lost) {
				this.lostEvents.add(lost);
			}
		});
		return template;
	}

	/** The store as the suite created it, without recording. */
	LockStore store() {
		return this.store;
	}

	/** Whether the store issues fencing tokens, as its suite declares. */
	DeclaredFencing fencing() {
		return this.fencing;
	}

	/** The template on the store as it is. */
	LockTemplate locks() {
		return this.locks;
	}

	/** What the template on the store as it is sent to the store. */
	TokenRecordingStore recording() {
		return this.recording;
	}

	/** The prefix the templates put before every key. */
	String prefix() {
		return this.prefix;
	}

	List<LockLostEvent> lostEvents() {
		return this.lostEvents;
	}

	ExecutorService executor() {
		return this.executor;
	}

	String uniqueKey(String name) {
		return name + "-" + UUID.randomUUID();
	}

	String storeKey(String key) {
		return this.prefix + key;
	}

	/**
	 * Return the template of a multi-key test: on the store as it is
	 * ({@link MultiKeyPath#STORE}, which uses its {@link MultiKeyLockStore} ability if it
	 * has one), or on the store seen without that ability ({@link MultiKeyPath#GENERIC}:
	 * ordered acquisition with rollback in the template), skipped for a store that has no
	 * such ability anyway.
	 */
	LockTemplate multiKeyLocks(MultiKeyPath path) {
		if (path == MultiKeyPath.GENERIC) {
			Assumptions.assumeTrue(this.store instanceof MultiKeyLockStore,
					"the store has no multi-key ability: its path is the generic one");
			return this.genericLocks;
		}
		return this.locks;
	}

	/** What a template of this fixture ({@link #multiKeyLocks} too) sent to the store. */
	TokenRecordingStore recording(LockTemplate locks) {
		return (locks == this.genericLocks) ? this.genericRecording : this.recording;
	}

	/**
	 * Return {@code count} templates on the store with the same key prefix, as that many
	 * application instances sharing the store have: the first is {@link #locks()}, the
	 * others are new and destroyed after the test. The test is skipped if the store does
	 * not keep locks of {@code kind}.
	 */
	List<LockTemplate> instances(LockKind kind, int count) {
		Assumptions.assumeTrue(this.locks.supports(kind),
				() -> this.store.getClass().getSimpleName() + " keeps no locks of kind " + kind);
		List<LockTemplate> instances = new ArrayList<>(count);
		instances.add(this.locks);
		for (int i = 1; i < count; i++) {
			LockTemplate instance = template(TokenRecordingStore.of(this.store));
			this.otherInstances.add(instance);
			instances.add(instance);
		}
		return instances;
	}

	/** The last owner token with which a template took a key. */
	String ownerToken(LockTemplate locks, String key) {
		TokenRecordingStore recording = (locks == this.genericLocks) ? this.genericRecording : this.recording;
		List<String> tokens = recording.acquiredTokens(storeKey(key));
		assertThat(tokens).as("tokens that acquired %s", key).isNotEmpty();
		return tokens.get(tokens.size() - 1);
	}

	void destroy() {
		this.executor.shutdownNow();
		this.locks.destroy();
		this.genericLocks.destroy();
		this.otherInstances.forEach(LockTemplate::destroy);
	}

	/** The path a multi-key test takes. */
	enum MultiKeyPath {

		/** The store as it is, with its multi-key ability if it has one. */
		STORE,

		/**
		 * The template's ordered acquisition with rollback, which every other store
		 * takes.
		 */
		GENERIC

	}

}
