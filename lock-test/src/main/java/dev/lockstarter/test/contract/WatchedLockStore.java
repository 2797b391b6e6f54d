package dev.lockstarter.test.contract;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Watches the acquisitions that a template sends to a store: counts those answered with
 * "held", so that a test can wait until a waiter has really found its lock held rather
 * than sleep and hope it had, and records which operation granted each key, so that a
 * test can tell an acquisition by a release listener ({@code tryAcquireOnRelease}) from
 * one by a poll. The watched {@link #store() store} passes every call on to the store it
 * wraps and has every store ability the wrapped store has (every public interface it
 * implements that extends {@link LockStore}), so that a template on it takes the same
 * paths.
 *
 * @since 0.1.0
 */
public final class WatchedLockStore implements InvocationHandler {

	private final LockStore delegate;

	private final LockStore store;

	private final AtomicInteger refusals = new AtomicInteger();

	private final Map<String, List<String>> grants = new ConcurrentHashMap<>();

	/**
	 * Watch a store.
	 * @param delegate the store to pass every call on to
	 */
	public WatchedLockStore(LockStore delegate) {
		this.delegate = delegate;
		List<Class<?>> interfaces = new ArrayList<>();
		for (Class<?> candidate : ClassUtils.getAllInterfacesForClassAsSet(delegate.getClass())) {
			if (LockStore.class.isAssignableFrom(candidate) && Modifier.isPublic(candidate.getModifiers())) {
				interfaces.add(candidate);
			}
		}
		this.store = (LockStore) Proxy.newProxyInstance(LockStore.class.getClassLoader(),
				interfaces.toArray(Class<?>[]::new), this);
	}

	/**
	 * Return the store to give the template.
	 * @return the watched store
	 */
	public LockStore store() {
		return this.store;
	}

	/**
	 * Wait until the store has answered at least {@code count} acquisitions with "held".
	 * @param count the refusals to wait for
	 * @param within how long to wait at most
	 * @throws AssertionError if they did not come in time
	 */
	public void awaitRefusals(int count, Duration within) throws InterruptedException {
		await("at least " + count + " acquisitions answered with 'held': the waiter's finding its lock held")
			.atMost(within)
			.pollInSameThread()
			.pollInterval(Duration.ofMillis(5))
			.untilAsserted(() -> assertThat(this.refusals.get()).as("acquisitions answered with 'held'")
				.isGreaterThanOrEqualTo(count));
	}

	/**
	 * Return the acquisitions answered with "held" so far.
	 * @return the count
	 */
	public int refusals() {
		return this.refusals.get();
	}

	/**
	 * Return the names of the operations that granted a store key, in order: for example
	 * {@code tryAcquire} for a try of the waiter's own, {@code tryAcquireOnRelease} for
	 * one sent by a release listener.
	 * @param storeKey the key in the store, with its prefix
	 * @return the operations
	 */
	public List<String> grantedBy(String storeKey) {
		return this.grants.getOrDefault(storeKey, List.of());
	}

	@Override
	public @Nullable Object invoke(Object proxy, Method method, @Nullable Object[] args) throws Throwable {
		if (method.getDeclaringClass() == Object.class) {
			return switch (method.getName()) {
				case "equals" -> args != null && proxy == args[0];
				case "hashCode" -> System.identityHashCode(proxy);
				default -> "watching " + this.delegate;
			};
		}
		Object reply;
		try {
			reply = method.invoke(this.delegate, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
		String name = method.getName();
		if (!name.startsWith("tryAcquire") || args == null) {
			return reply;
		}
		List<String> keys = (args[0] instanceof List<?> list) ? list.stream().map(String::valueOf).toList()
				: List.of(String.valueOf(args[0]));
		if (reply instanceof Mono<?> mono) {
			return mono.doOnNext((answer) -> count(name, keys, answer));
		}
		if (reply instanceof Optional<?> sent) {
			// A release listener's acquisition: counted once answered
			return sent.map((future) -> ((CompletableFuture<?>) future).thenApply((answer) -> {
				count(name, keys, answer);
				return answer;
			}));
		}
		count(name, keys, reply);
		return reply;
	}

	private void count(String operation, List<String> keys, @Nullable Object reply) {
		Boolean acquired = null;
		if (reply instanceof AcquireReply single) {
			acquired = single.isAcquired();
		}
		else if (reply instanceof AcquireReplyWithResult withResult) {
			acquired = withResult.acquisition().isAcquired();
		}
		else if (reply instanceof MultiKeyAcquireReply several) {
			acquired = several.isAcquired();
		}
		if (acquired == null) {
			return;
		}
		if (!acquired) {
			this.refusals.incrementAndGet();
			return;
		}
		for (String key : keys) {
			this.grants.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>()).add(operation);
		}
	}

}
