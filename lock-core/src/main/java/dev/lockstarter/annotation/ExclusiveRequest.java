package dev.lockstarter.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the annotated method for at most one caller per key at a time, across every
 * application instance that shares the lock store. A caller that finds the key locked is
 * rejected with a {@link dev.lockstarter.core.LockConflictException} (HTTP 409 by
 * default) and the method does not run.
 *
 * <pre class="code">
 * &#64;ExclusiveRequest(key = "#request.userName")
 * public User register(RegistrationRequest request) { ... }
 * </pre>
 *
 * The lock's key is {@code {lock.key-prefix}{name}:{value}}, where {@code value} is built
 * from the {@link #key() key expressions}. The lock is released when the method returns
 * or throws, or when its time-to-live passes, whichever comes first; while the method
 * runs, the lock is renewed before it expires (see {@code lock.renew} and
 * {@code lock.max-hold}).
 * <p>
 * <b>Reentrancy</b>: a method that holds a key and calls, through a proxy, another
 * annotated method that resolves to the same key (same name and value) runs it without
 * locking again; the outer call's lock covers both and is released when the outer call
 * ends. This is scoped to the current invocation chain: work handed to another thread is
 * not covered. The innermost lease of the chain, with its fencing token, is available
 * from {@link dev.lockstarter.interceptor.ExclusiveRequestContext} (from
 * {@link dev.lockstarter.interceptor.ReactiveExclusiveRequestContext} in a reactive
 * method's publisher).
 * <p>
 * <b>Single-flight</b>: with {@code onConflict = OnConflict.SHARE_RESULT}, a caller that
 * finds the key held waits for the holder and returns the holder's result instead of
 * running the method:
 *
 * <pre class="code">
 * &#64;ExclusiveRequest(key = "#values", onConflict = OnConflict.SHARE_RESULT, resultTtl = "10s")
 * public Sum sum(List&lt;Integer&gt; values) { ... }
 * </pre>
 *
 * <b>Several locks</b>: with {@code eachKey = true}, each key expression is a lock of its
 * own, and the method runs only while it holds all of them, taken at once, all or none:
 *
 * <pre class="code">
 * &#64;ExclusiveRequest(name = "account", key = { "#from.id", "#to.id" }, eachKey = true)
 * public void transfer(Account from, Account to, long amount) { ... }
 * </pre>
 *
 * transfer(A, B) then excludes transfer(B, A), transfer(A, C) and any other call that
 * locks account A or B, such as {@code @ExclusiveRequest(name = "account", key = "#id")}
 * on a method of one account.
 * <p>
 * The holder serializes its result with the application's {@code ResultCodec} (JSON by
 * default) and keeps it next to the lock until its {@link #resultTtl() time-to-live}
 * passes; each waiting caller deserializes it to the method's return type. It is not a
 * cache: a call that arrives after the holder finished runs the method again.
 * <p>
 * The annotation works through a Spring AOP proxy, so it applies to calls that go through
 * the bean's proxy: a call from another method of the same object
 * ({@code this.register(..)}) is not intercepted. Annotating a private, final or static
 * method fails startup because such a method cannot be intercepted.
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface ExclusiveRequest {

	/**
	 * SpEL expressions over the method's parameters whose values form the lock key, for
	 * example {@code "#userName"}, {@code "#request.userName"} or {@code "#p0"}.
	 * Parameters are available by name (compile with {@code -parameters}), as
	 * {@code #p0}/{@code #a0} by position, and {@code #args}. Expressions can read
	 * properties and call methods of the arguments, but cannot reach types, constructors
	 * or beans. Each value is converted with {@code toString()}; a {@code null} or blank
	 * value rejects the call with an
	 * {@link dev.lockstarter.core.InvalidLockKeyException}. When empty, one lock guards
	 * the method for all arguments.
	 * @return the key expressions
	 */
	String[] key() default {};

	/**
	 * Whether each {@link #key() key expression} names a lock of its own, instead of all
	 * of them together naming one composite lock. With {@code true}, the key of each lock
	 * is {@code {name}:{value}}, the same as a method whose only key expression has that
	 * value, and an expression whose value is a {@code Collection} or an array names one
	 * lock per element (a {@code null} or blank element, or an empty collection, rejects
	 * the call). The method runs only while it holds every lock: they are taken at once,
	 * in one global order so that calls naming the same keys in another order cannot
	 * deadlock, and a call that finds any of them held holds none of them (after waiting,
	 * if {@link #waitTime()} says so). Duplicates count once.
	 * <p>
	 * The default, {@code false}, joins the values into one key: {@code key = { "#from",
	 * "#to" }} locks the pair {@code (from, to)}, which does not exclude
	 * {@code (to, from)} nor {@code (from, other)}. Use {@code true} when the method
	 * changes each of the resources its keys name, as a transfer changes both accounts.
	 * <p>
	 * Needs at least one key expression, and cannot be combined with
	 * {@link OnConflict#SHARE_RESULT}: a shared result answers the callers of one key,
	 * and a caller of several keys has no single holder whose result answers it.
	 * @return whether each key is a lock of its own
	 * @since 0.1.0
	 */
	boolean eachKey() default false;

	/**
	 * Namespace of the lock, shared by every method that should exclude each other.
	 * Defaults to the declaring class's simple name and the method name,
	 * {@code "UserService.register"}.
	 * @return the lock name
	 */
	String name() default "";

	/**
	 * Time-to-live of the lock, overriding {@code lock.ttl}: a duration such as
	 * {@code "10s"}, {@code "500ms"} or {@code "PT1M"}, or a {@code ${...}} placeholder
	 * that resolves to one.
	 * @return the time-to-live, empty for the configured default
	 */
	String ttl() default "";

	/**
	 * HTTP status of the conflict response for this method, overriding
	 * {@code lock.web.conflict-status}. Must be a 4xx status such as 409 or 422.
	 * @return the conflict status, 0 for the configured default
	 */
	int conflictStatus() default 0;

	/**
	 * How long to wait for a held lock before giving up with a conflict, overriding
	 * {@code lock.wait-time}: a duration such as {@code "5s"}, or a {@code ${...}}
	 * placeholder. A waiter acquires as soon as the holder releases.
	 * @return the wait time, empty for the configured default
	 */
	String waitTime() default "";

	/**
	 * Number of fixed-interval retries for a held lock, as in "3 retries, 200 ms apart";
	 * used instead of {@link #waitTime()} when positive.
	 * @return the number of retries after the first attempt
	 */
	int retries() default 0;

	/**
	 * Pause before each of the {@link #retries()}, such as {@code "200ms"}.
	 * @return the retry interval, required when {@link #retries()} is positive
	 */
	String retryInterval() default "";

	/**
	 * Minimum time the lock stays held after it was acquired, even when the method
	 * returns sooner, such as {@code "2s"}: a repeated request (a double click) in that
	 * time is still rejected.
	 * @return the minimum hold time, empty for none
	 */
	String holdAtLeast() default "";

	/**
	 * Longest time the lock is renewed while the method runs, overriding
	 * {@code lock.max-hold}; after it, a hung method loses its lock one time-to-live
	 * later.
	 * @return the maximum hold time, empty for the configured default
	 */
	String maxHold() default "";

	/**
	 * What a call does when another call holds its key: {@link OnConflict#REJECT reject}
	 * it (after waiting, if {@link #waitTime()} says so), or
	 * {@link OnConflict#SHARE_RESULT wait for the holder's result}. With
	 * {@code SHARE_RESULT}, {@link #waitTime()} bounds the wait for the holder and
	 * defaults to twice the lock's time-to-live, so a holder that dies is taken over
	 * within the wait; {@link #retries()} and {@link #holdAtLeast()} cannot be used.
	 * @return the conflict behaviour
	 */
	OnConflict onConflict() default OnConflict.REJECT;

	/**
	 * How long a result shared with {@link OnConflict#SHARE_RESULT} is kept for the
	 * callers that waited for it, overriding {@code lock.result-ttl}: a duration such as
	 * {@code "10s"}, or a {@code ${...}} placeholder.
	 * @return the result time-to-live, empty for the configured default
	 */
	String resultTtl() default "";

	/**
	 * What the callers waiting for a holder get when it throws, with
	 * {@link OnConflict#SHARE_RESULT}: the same failure (the default), or one of them
	 * {@link OnHolderFailure#TAKE_OVER takes over}.
	 * @return the behaviour on the holder's failure
	 */
	OnHolderFailure onHolderFailure() default OnHolderFailure.SHARE_FAILURE;

	/**
	 * How many calls may hold a key at once across all instances: 1 (the default) for one
	 * at a time. With more, each call holds a permit of its own, with its own
	 * time-to-live, renewal and fencing token; a call that finds every permit held is
	 * rejected or waits like a call that finds a mutex held, and its {@code Retry-After}
	 * is the time until the first permit expires. Needs a lock store that keeps permits
	 * (redis, jdbc, memory); cannot be combined with {@link #mode()} {@code READ} or
	 * {@code WRITE}, {@link #eachKey()} or {@link OnConflict#SHARE_RESULT}.
	 * @return the number of permits, positive
	 * @since 0.1.0
	 */
	int permits() default 1;

	/**
	 * Whether the call takes its key whole ({@link LockMode#EXCLUSIVE}, the default), or
	 * the read or write side of a read/write lock: readers run together, a writer alone.
	 * Needs a lock store that keeps read/write locks (redis, jdbc, memory); cannot be
	 * combined with {@link #permits()}, {@link #eachKey()} or
	 * {@link OnConflict#SHARE_RESULT}.
	 * @return the lock mode
	 * @since 0.1.0
	 */
	LockMode mode() default LockMode.EXCLUSIVE;

	/**
	 * What happens when the lease is found lost while the method runs, overriding
	 * {@code lock.on-lease-lost}: the loss is {@linkplain OnLeaseLost#REPORT reported}
	 * and the method runs on, or the method is {@linkplain OnLeaseLost#CANCEL cancelled}
	 * and the caller gets a {@link dev.lockstarter.core.LeaseLostException}.
	 * {@code CANCEL} cannot be combined with a {@code CompletionStage} return type or
	 * with {@link OnConflict#SHARE_RESULT}.
	 * @return the lease-lost policy, {@link OnLeaseLost#DEFAULT} for the configured one
	 */
	OnLeaseLost onLeaseLost() default OnLeaseLost.DEFAULT;

	/**
	 * Name of a method of the same class that answers instead of the
	 * {@link dev.lockstarter.core.LockConflictException} when the key is held (after
	 * waiting or retrying, if {@link #waitTime()} or {@link #retries()} say so). It takes
	 * the same parameters, optionally followed by one that receives the conflict, and
	 * returns a type assignable to this method's: for a reactive method, a reactive type
	 * of a compatible value; for a Kotlin {@code suspend} function, a {@code suspend}
	 * function. It is resolved when the application starts, and a missing, ambiguous or
	 * incompatible method fails startup. It is called on the bean itself, not through its
	 * proxy, and its result or failure is the call's. Cannot be combined with
	 * {@link OnConflict#SHARE_RESULT}.
	 * @return the fallback method's name, empty for none
	 * @since 0.1.0
	 */
	String fallback() default "";

	/**
	 * Whether the {@link #fallback()} also answers when the lock store fails to answer
	 * the acquisition ({@link dev.lockstarter.store.LockStoreException}), instead of the
	 * application's store failure policy; its optional last parameter then receives
	 * either failure, so it must accept both (a
	 * {@link dev.lockstarter.store.LockException}).
	 * @return whether the fallback answers store failures too
	 * @since 0.1.0
	 */
	boolean fallbackOnStoreFailure() default false;

}
