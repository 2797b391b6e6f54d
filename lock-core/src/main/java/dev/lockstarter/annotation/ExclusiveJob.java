package dev.lockstarter.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Runs the annotated job, typically a {@code @Scheduled} method, on one application
 * instance per tick: every instance that shares the lock store fires the tick, the first
 * one to take the job's lock runs it, and the others skip it quietly.
 *
 * <pre class="code">
 * &#64;Scheduled(cron = "0 0 6 * * *")
 * &#64;ExclusiveJob
 * public void sendDailyReport() { ... }
 * </pre>
 *
 * <ul>
 * <li><b>Lock</b>: one lock per job, named by {@link #name()}, by default the declaring
 * class's simple name and the method name ({@code "ReportJob.sendDailyReport"}). Its
 * store key is {@code {lock.key-prefix}{name}}, the key of an
 * {@code @ExclusiveRequest(name = ...)} without key expressions, so that a job and a
 * method that triggers the same work by hand exclude each other.</li>
 * <li><b>Skipped tick</b>: an instance that finds the lock held does not run the method
 * and returns normally: {@code null} ({@code Optional.empty()} for an {@code Optional}, a
 * completed stage for a {@code CompletionStage}), logs at DEBUG and counts the tick as
 * {@code skipped}. It never throws, so the scheduler logs no error.</li>
 * <li><b>Clock skew</b>: the lock stays held for at least {@link #holdAtLeast()} after it
 * was taken, even when the job returns sooner, so that an instance whose clock is behind
 * and fires the same tick a little later finds it held.</li>
 * <li><b>Hung job</b>: while the job runs, the lock is renewed (see {@code lock.renew}),
 * for at most {@link #maxHold()}; a crashed instance's lock expires after
 * {@link #ttl()}.</li>
 * <li><b>Store failure</b>: when the lock store cannot be reached, the job does not run
 * on that instance (whatever {@code lock.on-store-failure} says), and a one-line WARN
 * says so; it runs again on the next tick that finds the store answering.</li>
 * </ul>
 * Startup fails with an {@code InvalidExclusiveJobException} for a method that takes
 * parameters (a job has one lock, not one per argument: use {@code @ExclusiveRequest}
 * with key expressions for that), returns a primitive value (a skipped tick has none to
 * return), is private, final or static (a proxy cannot intercept it), returns a reactive
 * type, or also carries {@code @ExclusiveRequest}; and for a duration that cannot be
 * parsed or is negative.
 *
 * @since 0.1.0
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Reflective
public @interface ExclusiveJob {

	/**
	 * Name of the job's lock, shared by every instance that runs the job. Defaults to the
	 * declaring class's simple name and the method name, {@code "ReportJob.send"}. Set it
	 * when two classes of the same simple name declare jobs, or to keep the lock when the
	 * method is renamed.
	 * @return the lock name
	 */
	String name() default "";

	/**
	 * Minimum time the lock stays held after the job took it, even when the job returns
	 * sooner, such as {@code "5s"}, {@code "PT30S"}, or a {@code ${...}} placeholder: it
	 * absorbs the differences between the instances' clocks, so that an instance that
	 * fires the same tick later than the winner skips it. Must be shorter than the
	 * schedule's period, or the next tick finds the lock still held everywhere. When
	 * empty, it is half of the shortest period of the method's {@code @Scheduled}
	 * ({@code fixedRate}, {@code fixedDelay} or {@code cron}); a method without such a
	 * schedule must set it ({@code "0s"} for none), unless its cron is turned off with
	 * {@code "-"}.
	 * @return the minimum hold time, empty for half the schedule's period
	 */
	String holdAtLeast() default "";

	/**
	 * Time-to-live of the lock, overriding {@code lock.ttl}: how long the lock outlives
	 * an instance that crashed while running the job, since a live instance renews it. A
	 * duration such as {@code "30s"}, or a {@code ${...}} placeholder.
	 * @return the time-to-live, empty for the configured default
	 */
	String ttl() default "";

	/**
	 * Longest time the lock is renewed while the job runs, overriding
	 * {@code lock.max-hold}: a hung job loses its lock one time-to-live later, and
	 * another instance can run the next tick. Set it above the job's longest normal run.
	 * @return the maximum hold time, empty for the configured default
	 */
	String maxHold() default "";

	/**
	 * How many instances may run the job at once: 1 (the default) for one. With more,
	 * each run holds a permit of its own. Needs a lock store that keeps permits (redis,
	 * jdbc, memory).
	 * @return the number of permits, positive
	 * @since 0.1.0
	 */
	int permits() default 1;

	/**
	 * What happens when the lease is found lost while the job runs, overriding
	 * {@code lock.on-lease-lost}: the loss is {@linkplain OnLeaseLost#REPORT reported}
	 * and the job runs on, or the job's thread is interrupted
	 * ({@link OnLeaseLost#CANCEL}) and the call fails with a
	 * {@link dev.lockstarter.core.LeaseLostException}. {@code CANCEL} cannot be combined
	 * with a {@code CompletionStage} return type.
	 * @return the lease-lost policy, {@link OnLeaseLost#DEFAULT} for the configured one
	 */
	OnLeaseLost onLeaseLost() default OnLeaseLost.DEFAULT;

}
