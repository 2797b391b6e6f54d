package dev.lockstarter.interceptor;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.core.Lease;

/**
 * The lease of the innermost {@link dev.lockstarter.annotation.ExclusiveRequest} method
 * that returns a reactive type, read from the Reactor context of the publisher it
 * returned: what {@link ExclusiveRequestContext} is to a method that runs on a thread. An
 * annotated reactive method reads its fencing token here, within the publisher it
 * returns:
 *
 * <pre class="code">
 * &#64;ExclusiveRequest(key = "#accountId")
 * public Mono&lt;Void&gt; credit(String accountId, long amount) {
 *     return ReactiveExclusiveRequestContext.currentFencingToken()
 *         .single()
 *         .flatMap((fence) -&gt; accounts.updateIfNewer(accountId, amount, fence));
 * }
 * </pre>
 *
 * The lease is in the context of the method's publisher while it is subscribed to with
 * the lock held, and of no other publisher. In a Kotlin {@code suspend} function, await
 * these {@code Mono}s ({@code awaitSingleOrNull()}): the coroutine carries the context.
 *
 * @since 0.1.0
 */
public final class ReactiveExclusiveRequestContext {

	/** The Reactor context key of the lease. */
	private static final Object LEASE_KEY = ReactiveExclusiveRequestContext.class.getName() + ".lease";

	private ReactiveExclusiveRequestContext() {
	}

	/**
	 * Return the lease of the innermost annotated reactive method whose publisher this
	 * {@code Mono} is subscribed in.
	 * @return the lease, or empty outside such a publisher and while an annotated method
	 * runs without a lock ({@code lock.on-store-failure=fail-open})
	 */
	public static Mono<Lease> currentLease() {
		return Mono.deferContextual((context) -> Mono.justOrEmpty(context.getOrEmpty(LEASE_KEY)));
	}

	/**
	 * Return the fencing token of the innermost annotated reactive method whose publisher
	 * this {@code Mono} is subscribed in.
	 * @return the token, or empty outside such a publisher, with a store that issues
	 * none, or for a method that locks {@code eachKey} of several keys (its lease has one
	 * per key, {@link Lease#fencingToken(String)}; on Redis the first read of each is a
	 * store call, to be made off the event loop)
	 */
	public static Mono<Long> currentFencingToken() {
		return currentLease().filter((lease) -> lease.keys().size() == 1)
			.map(Lease::fencingToken)
			.filter((token) -> token > 0);
	}

	/**
	 * Make {@code lease} the current lease of a method's publisher.
	 * @param work the method's publisher
	 * @param lease the lease the method holds
	 * @return the publisher, seeing the lease in its context
	 */
	static Flux<Object> within(Flux<Object> work, Lease lease) {
		return work.contextWrite((context) -> context.put(LEASE_KEY, lease));
	}

}
