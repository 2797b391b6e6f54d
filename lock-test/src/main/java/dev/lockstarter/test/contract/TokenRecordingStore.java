package dev.lockstarter.test.contract;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.FencingOnDemandLockStore;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import dev.lockstarter.store.MultiKeyLockStore;
import dev.lockstarter.store.ReleaseHandoffLockStore;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.SharedLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Remembers the owner tokens with which a template took keys and counts its extensions,
 * so that tests can act as the store would behind a lease's back. The recording
 * {@link #store() store} passes every call on to the store it wraps and has the same
 * abilities a template looks for: release notifications and handoffs, fencing on demand,
 * permits and read/write locks and, unless {@link #withoutMultiKey hidden}, multi-key
 * acquisition.
 */
final class TokenRecordingStore implements InvocationHandler {

	/** The abilities the recording store keeps, if the wrapped store has them. */
	private static final List<Class<? extends LockStore>> ABILITIES = List.of(ReleaseNotifyingLockStore.class,
			ReleaseHandoffLockStore.class, FencingOnDemandLockStore.class, MultiKeyLockStore.class,
			SharedLockStore.class);

	private final LockStore delegate;

	private final LockStore store;

	private final Map<String, List<String>> acquired = new ConcurrentHashMap<>();

	private final AtomicInteger extendCalls = new AtomicInteger();

	private final AtomicInteger refusals = new AtomicInteger();

	private final Set<String> refusedOwners = ConcurrentHashMap.newKeySet();

	private TokenRecordingStore(LockStore delegate, boolean multiKey) {
		this.delegate = delegate;
		List<Class<?>> interfaces = new ArrayList<>();
		interfaces.add(LockStore.class);
		for (Class<? extends LockStore> ability : ABILITIES) {
			if (ability.isInstance(delegate) && (multiKey || ability != MultiKeyLockStore.class)) {
				interfaces.add(ability);
			}
		}
		this.store = (LockStore) Proxy.newProxyInstance(LockStore.class.getClassLoader(),
				interfaces.toArray(Class<?>[]::new), this);
	}

	/** Record what a template sends to a store, keeping the store's abilities. */
	static TokenRecordingStore of(LockStore delegate) {
		return new TokenRecordingStore(delegate, true);
	}

	/**
	 * Record what a template sends to a store, keeping its abilities but hiding any
	 * multi-key acquisition, so that the template takes the generic path.
	 */
	static TokenRecordingStore withoutMultiKey(LockStore delegate) {
		return new TokenRecordingStore(delegate, false);
	}

	/** The store to give the template. */
	LockStore store() {
		return this.store;
	}

	/** The owner tokens that took a store key, in order. */
	List<String> acquiredTokens(String storeKey) {
		return this.acquired.getOrDefault(storeKey, List.of());
	}

	/** The acquisitions answered with "held" so far. */
	int refusals() {
		return this.refusals.get();
	}

	/**
	 * Wait until the store has answered at least {@code count} acquisitions with "held",
	 * so that a test knows its waiter is waiting rather than sleep and hope it is.
	 * @param count the refusals to wait for
	 * @throws AssertionError if they did not come within 20 seconds
	 */
	void awaitRefusals(int count) throws InterruptedException {
		awaitAtLeast(count, this.refusals::get, "acquisitions");
	}

	/** The owners (tokens) whose acquisitions were answered with "held" so far. */
	int refusedOwners() {
		return this.refusedOwners.size();
	}

	/**
	 * Wait until the store has answered acquisitions of at least {@code count} owners
	 * with "held": as many waiters are waiting.
	 * @param count the owners to wait for
	 * @throws AssertionError if they did not come within 20 seconds
	 */
	void awaitRefusedOwners(int count) throws InterruptedException {
		awaitAtLeast(count, this.refusedOwners::size, "owners' acquisitions");
	}

	private static void awaitAtLeast(int count, IntSupplier counter, String what) throws InterruptedException {
		await("at least " + count + " " + what + " answered with 'held': a waiter's finding its lock held")
			.atMost(Duration.ofSeconds(20))
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(5))
			.untilAsserted(() -> assertThat(counter.getAsInt()).as(what + " answered with 'held'")
				.isGreaterThanOrEqualTo(count));
	}

	/** The calls to extend one lock or several. */
	int extendCalls() {
		return this.extendCalls.get();
	}

	@Override
	public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
		if (method.getDeclaringClass() == Object.class) {
			return switch (method.getName()) {
				case "equals" -> args != null && proxy == args[0];
				case "hashCode" -> System.identityHashCode(proxy);
				default -> "recording " + this.delegate;
			};
		}
		if (method.getName().startsWith("extend")) {
			this.extendCalls.incrementAndGet();
		}
		Object reply = call(method, args);
		return (args != null) ? record(method.getName(), args, reply) : reply;
	}

	private @Nullable Object call(Method method, @Nullable Object[] args) throws Throwable {
		try {
			return method.invoke(this.delegate, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	/** Record the token of a granted acquisition; the reply to hand back. */
	@SuppressWarnings("unchecked")
	private @Nullable Object record(String method, @Nullable Object[] args, @Nullable Object reply) {
		String token = (args.length > 1 && args[1] instanceof String string) ? string : "";
		switch (method) {
			case "tryAcquire", "tryAcquireFenced", "tryAcquirePermit", "tryAcquireRead", "tryAcquireWrite" -> {
				if (reply instanceof AcquireReply granted && granted.isAcquired()) {
					record((String) Objects.requireNonNull(args[0]), token);
				}
				else if (reply instanceof AcquireReply) {
					refused(token);
				}
			}
			case "tryAcquireAll" -> {
				if (reply instanceof MultiKeyAcquireReply granted && granted.isAcquired()) {
					((List<String>) Objects.requireNonNull(args[0])).forEach((key) -> record(key, token));
				}
				else if (reply instanceof MultiKeyAcquireReply) {
					refused(token);
				}
			}
			case "tryAcquireOnRelease" -> {
				// An acquisition sent by a release listener: recorded once it is granted,
				// before the template sees the reply
				return ((Optional<CompletableFuture<AcquireReply>>) Objects.requireNonNull(reply))
					.map((sent) -> sent.thenApply((granted) -> {
						if (granted.isAcquired()) {
							record((String) Objects.requireNonNull(args[0]), token);
						}
						return granted;
					}));
			}
			default -> {
			}
		}
		return reply;
	}

	private void refused(String token) {
		this.refusedOwners.add(token);
		this.refusals.incrementAndGet();
	}

	private void record(String key, String token) {
		this.acquired.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>()).add(token);
	}

}
