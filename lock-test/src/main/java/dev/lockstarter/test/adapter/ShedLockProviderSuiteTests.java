package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.UUID;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * ShedLock's own test suite of lock providers
 * ({@code AbstractExtensibleLockProviderIntegrationTest} of
 * {@code net.javacrumbs.shedlock:shedlock-test-support}, its fuzz test included), run on
 * a ShedLock lock provider over {@link LockOperations} on one store: every case of the
 * suite, as ShedLock runs it on its own providers.
 * <p>
 * Before each test the provider gets a {@link LockTemplate} of its own on the store, with
 * a key prefix of its own. {@code assertLocked} and {@code assertUnlocked} look at the
 * store as another application instance would: a second template on the same store object
 * and with the same prefix tries to take the lock's name without waiting, and is refused
 * while the provider holds it; when it is granted it releases the lock at once. Stores
 * that count a lock's expiry from this JVM's own writes count it for both templates
 * alike, since they share the store object.
 * <p>
 * A store module's tests need {@code shedlock-test-support} (this kit has it as an
 * optional dependency) and the adapter, and return the store and the provider:
 *
 * <pre class="code">
 * class MyStoreShedLockProviderSuiteTests extends ShedLockProviderSuiteTests {
 *
 *     &#64;Override
 *     protected LockStore createStore() {
 *         return new MyLockStore(...);
 *     }
 *
 *     &#64;Override
 *     protected ExtensibleLockProvider createLockProvider(LockOperations operations) {
 *         return new LockOperationsLockProvider(operations);
 *     }
 *
 * }
 * </pre>
 *
 * The suite's timings are ShedLock's: locks of 2 ms and 50 ms, checked expired after
 * twice that, and minimum holds of two seconds. A store that answers more slowly than
 * such a lock lives fails those cases. It takes about ten seconds on a fast store.
 *
 * @since 0.1.0
 */
public abstract class ShedLockProviderSuiteTests extends AbstractExtensibleLockProviderIntegrationTest {

	/** The time-to-live of the observer's attempts, released at once when granted. */
	private static final Duration PROBE_TTL = Duration.ofSeconds(1);

	/** A time-to-live that does not pass during a test. */
	private static final Duration LONG_TTL = Duration.ofSeconds(30);

	private @Nullable LockStore store;

	private @Nullable LockTemplate instance;

	private @Nullable LockTemplate observer;

	private @Nullable ExtensibleLockProvider provider;

	/**
	 * Create the store under test. Called before each test; may return a store shared by
	 * the tests of a class.
	 * @return the store
	 */
	protected abstract LockStore createStore();

	/**
	 * Release the resources of a store created by {@link #createStore()}. Called after
	 * each test; does nothing by default.
	 * @param store the store
	 */
	protected void destroyStore(LockStore store) {
	}

	/**
	 * Create the ShedLock lock provider under test.
	 * @param operations the locks of one application instance
	 * @return the provider
	 */
	protected abstract ExtensibleLockProvider createLockProvider(LockOperations operations);

	@BeforeEach
	void setUpProvider() {
		LockStore store = createStore();
		this.store = store;
		String prefix = "shedlock-suite-" + UUID.randomUUID().toString().substring(0, 8) + ":";
		LockTemplate instance = new LockTemplate(store, prefix);
		this.instance = instance;
		LockTemplate observer = new LockTemplate(store, prefix);
		this.observer = observer;
		// Connections opened before the suite's locks of a few milliseconds
		LockAttempt warmUp = observer.tryAcquire("warm-up", LockOptions.ttl(LONG_TTL).withRenewal(false));
		assertThat(warmUp.isAcquired()).as("warm-up acquisition").isTrue();
		warmUp.lease().release();
		this.provider = createLockProvider(instance);
	}

	@AfterEach
	void tearDownProvider() {
		if (this.observer != null) {
			this.observer.destroy();
		}
		if (this.instance != null) {
			this.instance.destroy();
		}
		if (this.store != null) {
			destroyStore(this.store);
		}
	}

	/**
	 * Return the provider under test, one for each test.
	 * @return the provider
	 */
	@Override
	protected final ExtensibleLockProvider getLockProvider() {
		ExtensibleLockProvider provider = this.provider;
		if (provider == null) {
			throw new IllegalStateException("No lock provider outside of a test");
		}
		return provider;
	}

	/**
	 * Assert that another application instance cannot take the lock of a name.
	 * @param lockName the lock's name, the key of the provider's lock
	 */
	@Override
	protected final void assertLocked(String lockName) {
		LockAttempt probe = probe(lockName);
		if (probe.isAcquired()) {
			probe.lease().release();
			fail("Another instance acquired the lock %s, which the provider should hold", lockName);
		}
	}

	/**
	 * Assert that another application instance can take the lock of a name; it releases
	 * it at once.
	 * @param lockName the lock's name, the key of the provider's lock
	 */
	@Override
	protected final void assertUnlocked(String lockName) {
		LockAttempt probe = probe(lockName);
		assertThat(probe.isAcquired())
			.as("another instance acquired the lock %s, which the provider should not hold", lockName)
			.isTrue();
		assertThat(probe.lease().release()).as("release of the other instance's lock %s", lockName).isTrue();
	}

	private LockAttempt probe(String lockName) {
		LockTemplate observer = this.observer;
		if (observer == null) {
			throw new IllegalStateException("No observer outside of a test");
		}
		return observer.tryAcquire(lockName, LockOptions.ttl(PROBE_TTL).withRenewal(false));
	}

}
