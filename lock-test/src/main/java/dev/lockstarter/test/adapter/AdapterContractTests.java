package dev.lockstarter.test.adapter;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.store.LockStore;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.RenewableLockRegistry;

/**
 * The conformance suite of the adapters on {@link LockOperations}, run on one store:
 * <ul>
 * <li>Spring Integration's {@code RenewableLockRegistry<DistributedLock>}: what the
 * {@code LockRegistry}, {@code DistributedLock} and {@code RenewableLockRegistry}
 * contracts state and {@code RedisLockRegistry} does: one lock object per key while held,
 * blocking, timed and interruptible acquisition, reentrancy by the holding thread,
 * {@link IllegalMonitorStateException} for an unlock by another thread,
 * {@link java.util.ConcurrentModificationException} for the unlock of a lock that expired
 * and was taken over (which the new holder keeps), custom time-to-lives that expire
 * without renewal, {@code renewLock} by the holder only, no conditions, and
 * {@code executeLocked};</li>
 * <li>ShedLock's {@code ExtensibleLockProvider}: one lock per name, {@code lockAtMostFor}
 * as the time-to-live, {@code lockAtLeastFor} as the minimum hold, and {@code extend}
 * that hands out a new lock and invalidates the old one;</li>
 * <li>{@link LockOperations#lock(String, LockOptions)}, a {@link Lock}: the {@code Lock}
 * methods, reentrancy, {@link IllegalMonitorStateException} for a thread that does not
 * hold it, {@link dev.lockstarter.core.LockNotHeldException} for the unlock of a lock
 * that expired and was taken over, no conditions;</li>
 * <li>a fuzz test of each adapter: threads on several instances increment counters kept
 * outside the lock, checked by a {@link LostUpdateChecker}.</li>
 * </ul>
 * Every test uses several instances of the adapter, each on a
 * {@link dev.lockstarter.core.LockTemplate} of its own on the one store, as two
 * application instances would have, so that exclusion across processes is what is
 * checked, not only between the threads of one.
 * <p>
 * Subclasses return the store from {@link #createStore()} and the adapters from
 * {@link #createLockRegistry} and {@link #createLockProvider}:
 *
 * <pre class="code">
 * class MyStoreAdapterContractTests extends AdapterContractTests {
 *
 *     &#64;Override
 *     protected LockStore createStore() {
 *         return new MyLockStore(...);
 *     }
 *
 *     &#64;Override
 *     protected RenewableLockRegistry&lt;DistributedLock&gt; createLockRegistry(LockOperations operations,
 *             LockOptions options) {
 *         return new LockOperationsLockRegistry(operations, options);
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
 * Expiry is tested with time-to-lives of {@link #shortTtl()}, a few hundred milliseconds
 * by default, and renewal with time-to-lives of a second; the suite takes some twenty
 * seconds on a fast store, fuzz tests included.
 *
 * @since 0.1.0
 */
public abstract class AdapterContractTests
		implements DistributedLockContract, LockContract, LockProviderContract, AdapterFuzzContract {

	private @Nullable AdapterUnderTest adapterUnderTest;

	/**
	 * Create the store under test. Called before each test.
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
	 * Create the Spring Integration lock registry under test.
	 * @param operations the locks of one application instance
	 * @param options the time-to-live and renewal of the registry's locks
	 * @return the registry
	 */
	protected abstract RenewableLockRegistry<DistributedLock> createLockRegistry(LockOperations operations,
			LockOptions options);

	/**
	 * Create the ShedLock lock provider under test.
	 * @param operations the locks of one application instance
	 * @return the provider
	 */
	protected abstract ExtensibleLockProvider createLockProvider(LockOperations operations);

	/**
	 * Create the {@link Lock} under test;
	 * {@link LockOperations#lock(String, LockOptions)} by default.
	 * @param operations the locks of one application instance
	 * @param key the key
	 * @param options the time-to-live and renewal of the lock
	 * @return the lock
	 */
	protected Lock createLock(LockOperations operations, String key, LockOptions options) {
		return operations.lock(key, options);
	}

	/**
	 * Return a time-to-live that the expiry tests wait out; 300 ms by default. A store
	 * that expires locks with a coarser precision than tens of milliseconds returns a few
	 * times its precision. Tests that must act on a lock before it expires, or that renew
	 * it, give it a second or three of these, whichever is longer.
	 * @return the time-to-live
	 */
	protected Duration shortTtl() {
		return Duration.ofMillis(300);
	}

	/**
	 * Return the checker of the fuzz tests: 8 threads of 25 critical sections each by
	 * default. A store whose server answers only a few hundred requests a second may
	 * lower the sections to keep the suite fast.
	 * @return the lost-update checker
	 */
	protected LostUpdateChecker lostUpdateChecker() {
		return new LostUpdateChecker().threads(8).sectionsPerThread(25);
	}

	/**
	 * Return the adapters under test with the helpers the contract's tests share; an
	 * implementation detail of the suite, not meant for subclasses.
	 * @return the adapters under test
	 */
	@Override
	public final AdapterUnderTest adapterUnderTest() {
		AdapterUnderTest adapterUnderTest = this.adapterUnderTest;
		if (adapterUnderTest == null) {
			throw new IllegalStateException("No adapter under test outside of a test");
		}
		return adapterUnderTest;
	}

	@BeforeEach
	void setUpAdapters() {
		this.adapterUnderTest = new AdapterUnderTest(this, createStore());
		this.adapterUnderTest.warmUp();
	}

	@AfterEach
	void tearDownAdapters() {
		AdapterUnderTest adapterUnderTest = adapterUnderTest();
		adapterUnderTest.destroy();
		destroyStore(adapterUnderTest.store());
	}

}
