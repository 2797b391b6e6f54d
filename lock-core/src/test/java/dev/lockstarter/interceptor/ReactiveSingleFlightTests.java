package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import tools.jackson.databind.json.JsonMapper;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import dev.lockstarter.core.FinishedAttempt;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockListener;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.observation.ExclusiveRequestObservationContext;
import dev.lockstarter.result.JacksonResultCodec;
import dev.lockstarter.store.LockStoreException;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for single-flight ({@code onConflict = SHARE_RESULT}) on methods that return a
 * {@code Mono}, through an {@link ExclusiveRequestAdvisor} on a proxy, with a
 * {@link LockTemplate} on the in-memory store.
 */
class ReactiveSingleFlightTests {

	private static final Duration BLOCK = Duration.ofSeconds(10);

	private final InterceptedLocks intercepted = new InterceptedLocks();

	private final ExclusiveRequestInterceptorTests.SwitchableStore store = this.intercepted.store;

	private final LockTemplate locks = this.intercepted.locks;

	private final ExclusiveRequestAttributeSource attributeSource = this.intercepted.attributeSource;

	private final ExclusiveRequestInterceptor interceptor = this.intercepted.interceptor;

	private final List<String> outcomes = new CopyOnWriteArrayList<>();

	private final AtomicInteger shared = new AtomicInteger();

	private final List<FinishedAttempt.Outcome> acquisitions = new CopyOnWriteArrayList<>();

	private final Reports reports = new Reports();

	private final Reports proxy;

	ReactiveSingleFlightTests() {
		this.interceptor.setResultCodec(() -> new JacksonResultCodec(JsonMapper.builder().build()));
		this.interceptor.setListener(() -> new LockListener() {

			@Override
			public void resultShared(String name) {
				ReactiveSingleFlightTests.this.shared.incrementAndGet();
			}

		});
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {

			@Override
			public boolean supportsContext(Observation.Context context) {
				return context instanceof ExclusiveRequestObservationContext;
			}

			@Override
			public void onStop(Observation.Context context) {
				String outcome = ((ExclusiveRequestObservationContext) context).getOutcome();
				ReactiveSingleFlightTests.this.outcomes.add(String.valueOf(outcome));
			}

		});
		this.interceptor.setObservationRegistry(() -> registry);
		this.locks.addListener(new LockListener() {

			@Override
			public void acquisitionFinished(FinishedAttempt acquisition) {
				ReactiveSingleFlightTests.this.acquisitions.add(acquisition.outcome());
			}

		});
		this.proxy = this.intercepted.proxy(this.reports);
	}

	@AfterEach
	void shutDown() {
		this.locks.destroy();
	}

	@Test
	void holderRunsOnceAndEveryFollowerGetsItsValueWithoutRunningTheMethod() {
		int callers = 8;
		List<Report> results = simultaneously(callers, () -> this.proxy.report("eight"));
		assertThat(this.reports.runs).hasValue(1);
		assertThat(this.reports.overlaps).hasValue(0);
		assertThat(results).hasSize(callers).containsOnly(new Report("eight", 1));
		assertThat(this.shared).hasValue(callers - 1);
		awaitSize(this.outcomes, callers);
		assertThat(this.outcomes).containsOnlyOnce("acquired").filteredOn("shared"::equals).hasSize(callers - 1);
		// Only the holder took the lock: the followers, woken by its release, read its
		// value without taking it in turn
		assertThat(this.acquisitions).containsOnlyOnce(FinishedAttempt.Outcome.ACQUIRED)
			.filteredOn(FinishedAttempt.Outcome.STOPPED::equals)
			.hasSize(callers - 1);
		assertThat(isHeld("report:eight")).isFalse();
		assertThat(this.locks.getHeldLocks()).isEmpty();
	}

	@Test
	void concurrencyCheckDetectsTwoRunsAtOnceWithoutTheLock() {
		List<Report> results = subscribeAll(3, () -> this.reports.report("unguarded"), false);
		assertThat(results).hasSize(3);
		assertThat(this.reports.runs).hasValue(3);
		assertThat(this.reports.overlaps.get()).as("the check sees the runs that overlap").isPositive();
	}

	@Test
	void holderDeliversItsValueOnlyAfterKeepingItAndReleasingTheLock() {
		List<String> seen = simultaneously(1,
				() -> this.proxy.report("order")
					.map((report) -> "held: " + isHeld("report:order") + ", kept: "
							+ this.locks.results().orElseThrow().findResult("report:order").isPresent()));
		assertThat(seen).containsExactly("held: false, kept: true");
	}

	@Test
	void callerAfterTheHolderFinishedRunsTheMethodAgain() {
		this.reports.proceed.tryEmitEmpty();
		assertThat(this.proxy.report("sequential").block(BLOCK)).isEqualTo(new Report("sequential", 1));
		assertThat(this.proxy.report("sequential").block(BLOCK)).isEqualTo(new Report("sequential", 2));
		assertThat(this.shared).hasValue(0);
	}

	@Test
	void followersGetTheHoldersFailureWithoutRunningTheMethod() {
		this.reports.failuresLeft.set(1);
		List<Throwable> failures = simultaneouslyFailing(3, () -> this.proxy.report("failing"));
		assertThat(failures).hasSize(3)
			.allSatisfy((failure) -> assertThat(failure).isInstanceOf(IllegalStateException.class)
				.hasMessage("points service down"));
		assertThat(this.reports.runs).hasValue(1);
		assertThat(this.shared).hasValue(2);
		assertThat(isHeld("report:failing")).isFalse();
	}

	@Test
	void withTakeOverOneFollowerRunsAfterTheHolderFailsAndTheOthersGetItsValue() {
		this.reports.failuresLeft.set(1);
		List<Object> outcomes = new CopyOnWriteArrayList<>();
		List<Mono<Report>> calls = calls(4, () -> this.proxy.takingOver("takeover"));
		this.store.rejected = new CountDownLatch(3);
		Flux.merge(calls.stream()
			.map((call) -> call.cast(Object.class).onErrorResume((ex) -> Mono.just(ex)).doOnNext(outcomes::add))
			.toList()).subscribe();
		awaitFollowersThenProceed();
		awaitSize(outcomes, 4);
		assertThat(outcomes).filteredOn(IllegalStateException.class::isInstance).hasSize(1);
		assertThat(outcomes).filteredOn(Report.class::isInstance).hasSize(3).containsOnly(new Report("takeover", 2));
		assertThat(this.reports.runs).hasValue(2);
		assertThat(this.reports.overlaps).hasValue(0);
		assertThat(this.shared).hasValue(2);
	}

	@Test
	void emptyCompletionIsSharedAndFollowersCompleteEmpty() {
		List<Mono<Void>> calls = calls(3, () -> this.proxy.touch("touch"));
		this.store.rejected = new CountDownLatch(2);
		List<String> signals = new CopyOnWriteArrayList<>();
		calls.forEach((call) -> call.doOnSuccess((nothing) -> signals.add("complete"))
			.doOnError((ex) -> signals.add(ex.toString()))
			.subscribe());
		awaitFollowersThenProceed();
		awaitSize(signals, 3);
		assertThat(signals).containsOnly("complete");
		assertThat(this.reports.runs).hasValue(1);
		assertThat(this.shared).hasValue(2);
	}

	@Test
	void valueThatCannotBeSerializedFailsTheHolderAndFollowersNamingTheMethod() {
		List<Throwable> failures = simultaneouslyFailing(2, () -> this.proxy.opaque("opaque"));
		assertThat(failures).hasSize(2)
			.allSatisfy((failure) -> assertThat(failure).isInstanceOf(IllegalStateException.class)
				.hasMessageContaining("Reports.opaque(String)")
				.hasMessageContaining("cannot be serialized"));
		assertThat(this.reports.runs).hasValue(1);
	}

	@Test
	void cancelledHolderKeepsNothingAndReleasesItsLock() {
		Disposable holder = this.proxy.report("cancelled").subscribe();
		awaitHeld("report:cancelled");
		holder.dispose();
		awaitFree("report:cancelled");
		assertThat(this.locks.results().orElseThrow().findResult("report:cancelled")).isEmpty();
		this.reports.proceed.tryEmitEmpty();
		assertThat(this.proxy.report("cancelled").block(BLOCK)).isEqualTo(new Report("cancelled", 2));
		assertThat(this.shared).hasValue(0);
	}

	@Test
	void followerWhoseWaitEndsFirstGetsAConflict() {
		Disposable holder = this.proxy.briefWait("brief").subscribe();
		try {
			awaitHeld("report:brief");
			assertThatExceptionOfType(LockConflictException.class)
				.isThrownBy(() -> this.proxy.briefWait("brief").block(BLOCK));
			assertThat(this.reports.runs).hasValue(1);
			awaitSize(this.outcomes, 1);
			assertThat(this.outcomes).containsExactly("wait-timeout");
		}
		finally {
			holder.dispose();
		}
	}

	@Test
	void storeFailureIsAnErrorSignalAndTheMethodIsNotInvoked() {
		this.store.failing = true;
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> this.proxy.report("down").block(BLOCK));
		assertThat(this.reports.runs).hasValue(0);
	}

	@Test
	void resultTypeOfAMonoIsItsValueType() {
		Method report = ReflectionUtils.findMethod(Reports.class, "report", String.class);
		Method touch = ReflectionUtils.findMethod(Reports.class, "touch", String.class);
		ResultSharing sharing = this.attributeSource.getAttribute(report, Reports.class).resultSharing();
		assertThat(sharing.resultType()).isEqualTo(Report.class);
		assertThat(sharing.voidResult()).isFalse();
		assertThat(this.attributeSource.getAttribute(touch, Reports.class).resultSharing().voidResult()).isTrue();
	}

	/**
	 * Subscribe to several calls at once, let the holder finish once every other caller
	 * waits as a follower, and return their values.
	 */
	private <T> List<T> simultaneously(int count, Supplier<Mono<T>> call) {
		return subscribeAll(count, call, true);
	}

	private <T> List<T> subscribeAll(int count, Supplier<Mono<T>> call, boolean guarded) {
		List<Mono<T>> calls = calls(count, call);
		this.store.rejected = new CountDownLatch(count - 1);
		List<T> results = new CopyOnWriteArrayList<>();
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		calls.forEach((mono) -> mono.subscribe(results::add, failures::add));
		if (guarded) {
			awaitFollowersThenProceed();
		}
		else {
			this.reports.proceed.tryEmitEmpty();
		}
		awaitSize(results, count, failures);
		return List.copyOf(results);
	}

	private List<Throwable> simultaneouslyFailing(int count, Supplier<Mono<?>> call) {
		List<Mono<?>> calls = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			calls.add(call.get());
		}
		this.store.rejected = new CountDownLatch(count - 1);
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		calls.forEach(
				(mono) -> mono.subscribe((value) -> failures.add(new AssertionError("value " + value)), failures::add));
		awaitFollowersThenProceed();
		awaitSize(failures, count);
		return List.copyOf(failures);
	}

	private static <T> List<Mono<T>> calls(int count, Supplier<Mono<T>> call) {
		List<Mono<T>> calls = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			calls.add(call.get());
		}
		return calls;
	}

	/**
	 * Wait until every follower's first attempt found the lock held (so that each noted
	 * the kept result before the holder kept its own), then let the holder finish.
	 */
	private void awaitFollowersThenProceed() {
		try {
			assertThat(this.store.rejected.await(BLOCK.toMillis(), TimeUnit.MILLISECONDS)).as("followers waiting")
				.isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		this.reports.proceed.tryEmitEmpty();
	}

	private static void awaitSize(List<?> list, int size) {
		awaitSize(list, size, List.of());
	}

	private static void awaitSize(List<?> list, int size, List<Throwable> failures) {
		await().atMost(BLOCK)
			.pollInterval(Duration.ofMillis(1))
			.failFast(() -> assertThat(failures).isEmpty())
			.untilAsserted(() -> assertThat(list).as("%d signals", size).hasSizeGreaterThanOrEqualTo(size));
		assertThat(failures).isEmpty();
	}

	private boolean isHeld(String key) {
		LockAttempt attempt = this.locks.tryAcquire(key, Duration.ofSeconds(30));
		if (attempt.isAcquired()) {
			attempt.lease().close();
			return false;
		}
		return true;
	}

	private void awaitHeld(String key) {
		await("held").atMost(BLOCK)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> this.locks.getHeldLocks().stream().anyMatch((held) -> held.key().equals(key)));
	}

	private void awaitFree(String key) {
		await("released").atMost(BLOCK)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> this.locks.getHeldLocks().isEmpty() && !isHeld(key));
	}

	record Report(String id, int run) {
	}

	/** Not serializable by Jackson: its only property fails. */
	public static class Opaque {

		public String getValue() {
			throw new UnsupportedOperationException("no value");
		}

	}

	/**
	 * Methods whose bodies wait for {@link #proceed}, count their invocations, and count
	 * the bodies that overlap another: two at once are seen, whatever the lock does.
	 */
	static class Reports {

		final AtomicInteger runs = new AtomicInteger();

		final AtomicInteger running = new AtomicInteger();

		final AtomicInteger overlaps = new AtomicInteger();

		final AtomicInteger failuresLeft = new AtomicInteger();

		final Sinks.Empty<Void> proceed = Sinks.empty();

		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Mono<Report> report(String id) {
			return body(id);
		}

		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT,
				onHolderFailure = OnHolderFailure.TAKE_OVER)
		public Mono<Report> takingOver(String id) {
			return body(id);
		}

		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Mono<Void> touch(String id) {
			return body(id).then();
		}

		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Mono<Opaque> opaque(String id) {
			return body(id).map((report) -> new Opaque());
		}

		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT, waitTime = "200ms")
		public Mono<Report> briefWait(String id) {
			return body(id);
		}

		private Mono<Report> body(String id) {
			int run = this.runs.incrementAndGet();
			return Mono.defer(() -> {
				if (this.running.incrementAndGet() > 1) {
					this.overlaps.incrementAndGet();
				}
				return this.proceed.asMono().then(Mono.delay(Duration.ofMillis(50))).then(Mono.fromCallable(() -> {
					if (this.failuresLeft.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
						throw new IllegalStateException("points service down");
					}
					return new Report(id, run);
				}))
					// Before the outcome goes on: the next run may start from its signal
					.doOnTerminate(this.running::decrementAndGet)
					.doOnCancel(this.running::decrementAndGet);
			});
		}

	}

}
