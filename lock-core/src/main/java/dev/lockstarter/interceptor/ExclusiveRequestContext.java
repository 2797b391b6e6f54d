package dev.lockstarter.interceptor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Lease;

/**
 * The leases held by the current chain of
 * {@link dev.lockstarter.annotation.ExclusiveRequest} invocations on this thread,
 * innermost last. An annotated method reads its fencing token here, to hand it to a
 * storage layer that rejects writes from stale holders:
 *
 * <pre class="code">
 * &#64;ExclusiveRequest(key = "#accountId")
 * public void credit(String accountId, long amount) {
 *     long fence = ExclusiveRequestContext.currentFencingToken().orElseThrow();
 *     accounts.updateIfNewer(accountId, amount, fence);
 * }
 * </pre>
 *
 * A method with {@code eachKey = true} holds one lease on all its keys, which has one
 * fencing token per key: read them with {@code currentLease().fencingToken(key)}.
 * <p>
 * The context belongs to the invocation chain: it is filled when an annotated method is
 * entered and emptied when it returns, and is not visible to other threads.
 *
 * @since 0.1.0
 */
public final class ExclusiveRequestContext {

	/**
	 * A thread keeps its chain, empty, between invocations, so that an invocation costs
	 * no allocation and no change of the thread's map; an empty deque of a JDK class
	 * holds nothing and pins no class loader.
	 */
	private static final ThreadLocal<ArrayDeque<Lease>> CHAIN = new ThreadLocal<>();

	private ExclusiveRequestContext() {
	}

	/**
	 * Return the lease of the innermost annotated method running on this thread.
	 * @return the lease, or {@code null} outside an annotated method
	 */
	public static @Nullable Lease currentLease() {
		ArrayDeque<Lease> chain = CHAIN.get();
		return (chain != null) ? chain.peekLast() : null;
	}

	/**
	 * Return the fencing token of the innermost annotated method running on this thread.
	 * @return the token, or empty outside an annotated method, with a store that issues
	 * none, or for a method that locks {@code eachKey} of several keys
	 */
	public static OptionalLong currentFencingToken() {
		Lease lease = currentLease();
		return (lease != null && lease.fencingToken() > 0) ? OptionalLong.of(lease.fencingToken())
				: OptionalLong.empty();
	}

	static @Nullable Lease held(String key) {
		ArrayDeque<Lease> chain = CHAIN.get();
		if (chain != null) {
			for (Lease lease : chain) {
				if (lease.keys().contains(key)) {
					return lease;
				}
			}
		}
		return null;
	}

	/**
	 * Return the keys that no lease of the chain holds.
	 * @param keys the keys a method needs
	 * @return those of them it must still lock, in their order
	 */
	static List<String> notHeld(List<String> keys) {
		ArrayDeque<Lease> chain = CHAIN.get();
		if (chain == null || chain.isEmpty()) {
			return keys;
		}
		List<String> missing = new ArrayList<>(keys.size());
		for (String key : keys) {
			if (held(key) == null) {
				missing.add(key);
			}
		}
		return missing;
	}

	static void push(Lease lease) {
		ArrayDeque<Lease> chain = CHAIN.get();
		if (chain == null) {
			chain = new ArrayDeque<>(4);
			CHAIN.set(chain);
		}
		chain.addLast(lease);
	}

	static void pop() {
		ArrayDeque<Lease> chain = CHAIN.get();
		if (chain != null) {
			chain.pollLast();
		}
	}

}
