package dev.lockstarter.test.contract;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.AcquireReplyWithResult;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.MultiKeyAcquireReply;
import org.springframework.util.ClassUtils;

/**
 * Counts the acquisitions that a store answered with "held", so that a test can wait
 * until a waiter has really found its lock held, rather than sleep and hope it had. The
 * watching {@link #store() store} passes every call on to the store it wraps and has
 * every store ability the wrapped store has (every public interface it implements that
 * extends {@link LockStore}), so that a template on it takes the same paths.
 */
final class RefusalWatchingStore implements InvocationHandler {

	private final LockStore delegate;

	private final LockStore store;

	private final AtomicInteger refusals = new AtomicInteger();

	RefusalWatchingStore(LockStore delegate) {
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

	/** The store to give the template. */
	LockStore store() {
		return this.store;
	}

	/**
	 * Wait until the store has answered at least {@code count} acquisitions with "held".
	 * @param count the refusals to wait for
	 * @param within how long to wait at most
	 * @throws AssertionError if they did not come in time
	 */
	void awaitRefusals(int count, Duration within) throws InterruptedException {
		long deadline = System.nanoTime() + within.toNanos();
		while (this.refusals.get() < count) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("The store answered " + this.refusals.get() + " acquisitions with 'held' in "
						+ within + ", expected at least " + count + ": the waiter never found its lock held");
			}
			Thread.sleep(5);
		}
	}

	/** The acquisitions answered with "held" so far. */
	int refusals() {
		return this.refusals.get();
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
		if (reply instanceof Mono<?> mono && method.getName().startsWith("tryAcquire")) {
			return mono.doOnNext(this::count);
		}
		count(reply);
		return reply;
	}

	private void count(@Nullable Object reply) {
		boolean refused = (reply instanceof AcquireReply single && !single.isAcquired())
				|| (reply instanceof AcquireReplyWithResult withResult && !withResult.acquisition().isAcquired())
				|| (reply instanceof MultiKeyAcquireReply several && !several.isAcquired());
		if (refused) {
			this.refusals.incrementAndGet();
		}
	}

}
