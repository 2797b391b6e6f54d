package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import io.micrometer.observation.ObservationRegistry;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockListener;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.observation.DefaultExclusiveRequestObservationConvention;
import dev.lockstarter.observation.ExclusiveRequestObservationConvention;
import dev.lockstarter.result.ResultCodec;
import org.springframework.core.ReactiveAdapter;
import org.springframework.util.Assert;
import org.springframework.util.function.SingletonSupplier;

/**
 * The engine behind {@link ExclusiveRequestInterceptor}: its configuration, and the
 * dispatch of each call to the handling of its method's return type, which the parser
 * chose once per method. A reactive type or {@code suspend} function (an
 * {@link ExclusiveRequestAttribute#reactiveAdapter() adapter}) goes to the reactive
 * handler, created only when Reactor is present; a value or a {@link CompletionStage} to
 * the blocking handler. Both share the store-failure policy, the observations and the
 * shared results of single-flight, which are types of their own.
 *
 * @since 0.1.0
 */
@Internal
public abstract class ExclusiveRequestAspectSupport {

	private static final Log logger = LogFactory.getLog(ExclusiveRequestAspectSupport.class);

	private final Supplier<ResolvedLocks> locks;

	private final Supplier<LockOptions> defaults;

	private Supplier<@Nullable ResultCodec> resultCodec = () -> null;

	private Supplier<Duration> defaultResultTtl = () -> SharedResults.DEFAULT_TTL;

	private Supplier<ObservationRegistry> observationRegistry = () -> ObservationRegistry.NOOP;

	private Supplier<@Nullable ExclusiveRequestObservationConvention> observationConvention = () -> null;

	private Supplier<@Nullable LockListener> listener = () -> null;

	private final StoreFailures storeFailures = new StoreFailures();

	private volatile OnLeaseLost onLeaseLost = OnLeaseLost.REPORT;

	private final BlockingLockingHandler blockingHandler;

	/** Created on the first call of a reactive method: only then is Reactor needed. */
	private final @Nullable SingletonSupplier<ReactiveLockingHandler> reactiveHandler;

	ExclusiveRequestAspectSupport(Supplier<LockOperations> locks, Supplier<LockOptions> defaults) {
		Assert.notNull(locks, "'locks' must not be null");
		Assert.notNull(defaults, "'defaults' must not be null");
		this.locks = SingletonSupplier.of(() -> ResolvedLocks.of(locks.get()));
		this.defaults = SingletonSupplier.of(defaults);
		RequestObservations observations = new RequestObservations(() -> this.observationRegistry.get(),
				() -> this.observationConvention.get(), () -> this.locks.get().storeName());
		SharedResults sharedResults = new SharedResults(() -> this.resultCodec.get(), () -> this.defaultResultTtl.get(),
				() -> this.listener.get());
		RequestCollaborators collaborators = new RequestCollaborators(this.locks, this.defaults, observations,
				this.storeFailures, sharedResults, () -> this.onLeaseLost);
		this.blockingHandler = new BlockingLockingHandler(collaborators);
		this.reactiveHandler = ReturnTypes.REACTOR_PRESENT
				? SingletonSupplier.of(() -> new ReactiveLockingHandler(collaborators)) : null;
	}

	/**
	 * Set the codec of results shared by single-flight methods
	 * ({@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT}). The supplier is
	 * called once, on first use.
	 * @param resultCodec the supplier of the codec
	 */
	public void setResultCodec(Supplier<@Nullable ResultCodec> resultCodec) {
		Assert.notNull(resultCodec, "'resultCodec' must not be null");
		this.resultCodec = once(resultCodec);
	}

	/**
	 * Set how long shared results are kept when the method sets no {@code resultTtl},
	 * {@link ExclusiveRequestInterceptor#DEFAULT_RESULT_TTL} by default. The supplier is
	 * called once, on first use.
	 * @param defaultResultTtl the supplier of the default result time-to-live
	 */
	public void setDefaultResultTtl(Supplier<Duration> defaultResultTtl) {
		Assert.notNull(defaultResultTtl, "'defaultResultTtl' must not be null");
		this.defaultResultTtl = SingletonSupplier.of(defaultResultTtl);
	}

	/**
	 * Set what a method does when the store fails to answer its acquisition. Default:
	 * {@link StoreFailurePolicy#FAIL_CLOSED}.
	 * @param storeFailurePolicy the policy
	 */
	public void setStoreFailurePolicy(StoreFailurePolicy storeFailurePolicy) {
		Assert.notNull(storeFailurePolicy, "'storeFailurePolicy' must not be null");
		this.storeFailures.setPolicy(storeFailurePolicy);
	}

	/**
	 * Return what a method does when the store fails to answer its acquisition.
	 * @return the policy
	 */
	public StoreFailurePolicy getStoreFailurePolicy() {
		return this.storeFailures.policy();
	}

	/**
	 * Set what happens to the methods that declare no {@code onLeaseLost} when their
	 * lease is found lost while they run. Default: {@link OnLeaseLost#REPORT}.
	 * {@link OnLeaseLost#CANCEL} applies to the methods that can be cancelled: not to
	 * those returning a {@link CompletionStage}, nor to single-flight ones, which keep
	 * reporting.
	 * @param onLeaseLost {@link OnLeaseLost#REPORT} or {@link OnLeaseLost#CANCEL}
	 * @since 0.1.0
	 */
	public void setOnLeaseLost(OnLeaseLost onLeaseLost) {
		Assert.isTrue(onLeaseLost == OnLeaseLost.REPORT || onLeaseLost == OnLeaseLost.CANCEL,
				"'onLeaseLost' must be REPORT or CANCEL");
		this.onLeaseLost = onLeaseLost;
	}

	/**
	 * Return what happens to the methods that declare no {@code onLeaseLost} when their
	 * lease is found lost.
	 * @return the configured policy
	 * @since 0.1.0
	 */
	public OnLeaseLost getOnLeaseLost() {
		return this.onLeaseLost;
	}

	/**
	 * Set the registry of the {@code lock.request} observations; none by default. The
	 * supplier is called once, on first use.
	 * @param observationRegistry the supplier of the registry
	 */
	public void setObservationRegistry(Supplier<ObservationRegistry> observationRegistry) {
		Assert.notNull(observationRegistry, "'observationRegistry' must not be null");
		this.observationRegistry = SingletonSupplier.of(observationRegistry);
	}

	/**
	 * Set the convention of the {@code lock.request} observations, replacing
	 * {@link DefaultExclusiveRequestObservationConvention}. The supplier is called once,
	 * on first use.
	 * @param observationConvention the supplier of the convention, which may supply
	 * {@code null} for the default
	 */
	public void setObservationConvention(
			Supplier<@Nullable ExclusiveRequestObservationConvention> observationConvention) {
		Assert.notNull(observationConvention, "'observationConvention' must not be null");
		this.observationConvention = once(observationConvention);
	}

	/**
	 * Set the listener told when a single-flight caller receives a shared result. The
	 * supplier is called once, on first use.
	 * @param listener the supplier of the listener, which may supply {@code null} for
	 * none
	 */
	public void setListener(Supplier<@Nullable LockListener> listener) {
		Assert.notNull(listener, "'listener' must not be null");
		this.listener = once(listener);
	}

	/**
	 * Resolve an optional collaborator once, its absence included: a
	 * {@link SingletonSupplier} that answers {@code null} asks again on every call, under
	 * a lock, which callers running at once (single-flight followers answered together,
	 * on event loops too) would wait on.
	 */
	private static <T> Supplier<@Nullable T> once(Supplier<@Nullable T> supplier) {
		SingletonSupplier<Optional<T>> resolved = SingletonSupplier.of(() -> Optional.ofNullable(supplier.get()));
		return () -> resolved.obtain().orElse(null);
	}

	/**
	 * Resolve the suppliers now rather than on the first call (single-flight followers
	 * answered together would otherwise wait for the first lookup of the listener, on
	 * event-loop threads too), and, with Reactor present, create the handler of reactive
	 * methods. A failure is left for the first call to report.
	 */
	void prepare() {
		List<Supplier<?>> suppliers = new ArrayList<>(List.of(this.locks, this.defaults, this.observationRegistry,
				this.observationConvention, this.listener, this.resultCodec, this.defaultResultTtl));
		if (this.reactiveHandler != null) {
			suppliers.add(this.reactiveHandler);
		}
		for (Supplier<?> supplier : suppliers) {
			try {
				supplier.get();
			}
			catch (RuntimeException ex) {
				if (logger.isDebugEnabled()) {
					logger.debug("Could not prepare the @ExclusiveRequest interceptor ahead of its first call", ex);
				}
			}
		}
	}

	/**
	 * Run one call of a method with a declaration.
	 * @param invocation the call
	 * @param attribute the method's declaration
	 * @return the call's result
	 * @throws Throwable the method's failure, a conflict or a store failure
	 */
	protected @Nullable Object execute(MethodInvocation invocation, ExclusiveRequestAttribute attribute)
			throws Throwable {
		ReactiveAdapter reactiveAdapter = attribute.reactiveAdapter();
		if (reactiveAdapter != null && this.reactiveHandler != null) {
			return this.reactiveHandler.obtain().invoke(invocation, attribute, reactiveAdapter);
		}
		return this.blockingHandler.invoke(invocation, attribute);
	}

}
