package dev.lockstarter.interceptor;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockException;
import dev.lockstarter.store.LockStoreException;
import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the {@link ExclusiveRequest#fallback() fallback} of {@code @ExclusiveRequest}
 * methods, blocking and reactive, through a proxy, with a {@link LockTemplate} on the
 * in-memory store (which the tests make fail to answer when they need a store failure).
 * The key is held by the test itself, as another owner would hold it.
 */
class ExclusiveRequestFallbackTests {

	private static final Duration BLOCK = Duration.ofSeconds(10);

	private final ExclusiveRequestInterceptorTests.SwitchableStore store = new ExclusiveRequestInterceptorTests.SwitchableStore();

	private final LockTemplate locks = new LockTemplate(this.store, "");

	private final ExclusiveRequestInterceptor interceptor = new ExclusiveRequestInterceptor(
			new ExclusiveRequestAttributeSource(), () -> this.locks, () -> LockOptions.ttl(Duration.ofSeconds(30)));

	private final Exports target = new Exports();

	private final Exports exports = proxy(this.target);

	@AfterEach
	void shutDown() {
		this.locks.destroy();
	}

	@Test
	void freeKeyRunsTheMethodAndNotTheFallback() {
		assertThat(this.exports.export("acme", 3)).isEqualTo("export of acme, 3 rows");
		assertThat(this.target.runs).hasValue(1);
		assertThat(this.target.fallbacks).isEmpty();
	}

	@Test
	void heldKeyIsAnsweredByTheFallbackWithTheArgumentsAndTheConflict() {
		try (Lease held = hold("exports:acme")) {
			assertThat(this.exports.export("acme", 3)).isEqualTo("queued acme (3 rows): exports");
		}
		assertThat(this.target.runs).hasValue(0);
		assertThat(this.target.fallbacks).singleElement().satisfies((conflict) -> {
			assertThat(conflict).isInstanceOf(LockConflictException.class);
			assertThat(conflict.getLockName()).isEqualTo("exports");
			assertThat(((LockConflictException) conflict).getRetryAfter()).isPositive();
		});
	}

	@Test
	void fallbackWithoutTheConflictParameterReceivesTheArguments() {
		try (Lease held = hold("reports:7")) {
			assertThat(this.exports.report(7L)).isEqualTo("report 7 is being produced");
		}
		assertThat(this.target.runs).hasValue(0);
	}

	@Test
	void fallbackAnswersOnlyOnceTheRetriesAreSpent() {
		try (Lease held = hold("retried:acme")) {
			int before = this.store.acquisitions.get();
			assertThat(this.exports.retried("acme")).isEqualTo("retried acme: busy");
			// The first attempt and its two retries, then the fallback
			assertThat(this.store.acquisitions.get() - before).isEqualTo(3);
		}
	}

	@Test
	void conflictThatTheMethodItselfThrowsIsNotAnsweredByTheFallback() {
		assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> this.exports.nested("acme"))
			.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("inner"));
		assertThat(this.target.fallbacks).isEmpty();
	}

	@Test
	void failureOfTheFallbackIsTheCallersFailure() {
		try (Lease held = hold("strict:acme")) {
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> this.exports.strict("acme"))
				.withMessage("no capacity for acme");
		}
	}

	@Test
	void asynchronousMethodIsAnsweredByTheFallbacksStage() throws Exception {
		try (Lease held = hold("async:acme")) {
			assertThat(this.exports.async("acme").toCompletableFuture().get(10, TimeUnit.SECONDS))
				.isEqualTo("later acme");
		}
		assertThat(this.target.runs).hasValue(0);
	}

	@Test
	void storeFailureIsNotAnsweredByTheFallbackUnlessTheMethodSaysSo() {
		this.store.failing = true;
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> this.exports.export("acme", 1));
		assertThat(this.target.fallbacks).isEmpty();
		assertThat(this.target.runs).hasValue(0);
	}

	@Test
	void storeFailureIsAnsweredByTheFallbackThatTakesIt() {
		this.store.failing = true;
		assertThat(this.exports.resilient("acme")).isEqualTo("degraded acme");
		assertThat(this.target.fallbacks).singleElement().isInstanceOf(LockStoreException.class);
		assertThat(this.target.runs).hasValue(0);
	}

	@Test
	void fallbackOnStoreFailureTakesPrecedenceOverFailOpen() {
		this.interceptor.setStoreFailurePolicy(StoreFailurePolicy.FAIL_OPEN);
		this.store.failing = true;
		assertThat(this.exports.resilient("acme")).isEqualTo("degraded acme");
		assertThat(this.target.runs).hasValue(0);
		// A method without fallbackOnStoreFailure keeps the policy: it runs without a
		// lock
		assertThat(this.exports.export("acme", 1)).isEqualTo("export of acme, 1 rows");
		assertThat(this.target.runs).hasValue(1);
	}

	@Test
	void conflictOfAMethodWhoseFallbackTakesStoreFailuresIsAnsweredToo() {
		try (Lease held = hold("resilient:acme")) {
			assertThat(this.exports.resilient("acme")).isEqualTo("degraded acme");
		}
		assertThat(this.target.fallbacks).singleElement().isInstanceOf(LockConflictException.class);
	}

	@Test
	void monoIsAnsweredByTheFallbacksMonoWithoutSubscribingToTheMethod() {
		try (Lease held = hold("mono:acme")) {
			assertThat(this.exports.mono("acme").block(BLOCK)).isEqualTo("mono fallback acme: mono");
		}
		assertThat(this.target.runs).hasValue(0);
		assertThat(this.exports.mono("acme").block(BLOCK)).isEqualTo("mono acme");
	}

	@Test
	void monoFallbackOfAWiderValueTypeAnswers() {
		try (Lease held = hold("wide:acme")) {
			assertThat(this.exports.wide("acme").block(BLOCK)).hasToString("narrow acme");
		}
	}

	@Test
	void fluxIsAnsweredByTheFallbacksFlux() {
		try (Lease held = hold("flux:acme")) {
			assertThat(this.exports.flux("acme", 3).collectList().block(BLOCK)).containsExactly("cached acme", "flux");
		}
		assertThat(this.target.runs).hasValue(0);
		assertThat(this.exports.flux("acme", 3).collectList().block(BLOCK)).containsExactly("acme 0", "acme 1",
				"acme 2");
	}

	@Test
	void reactiveFallbackIsCalledOnSubscriptionNotWhenTheMethodIsCalled() {
		try (Lease held = hold("mono:acme")) {
			Mono<String> call = this.exports.mono("acme");
			assertThat(this.target.fallbacks).isEmpty();
			call.block(BLOCK);
			assertThat(this.target.fallbacks).hasSize(1);
		}
	}

	@Test
	void reactiveStoreFailureIsAnsweredByTheFallbackThatTakesIt() {
		this.store.failing = true;
		assertThat(this.exports.resilientMono("acme").block(BLOCK)).isEqualTo("degraded mono acme");
		assertThat(this.target.fallbacks).singleElement().isInstanceOf(LockStoreException.class);
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> this.exports.mono("acme").block(BLOCK));
	}

	@Test
	void reactiveErrorOfTheMethodIsNotAnsweredByTheFallback() {
		assertThatExceptionOfType(LockConflictException.class)
			.isThrownBy(() -> this.exports.failingFlux("acme").blockLast(BLOCK));
		assertThat(this.target.fallbacks).isEmpty();
	}

	private Lease hold(String key) {
		LockAttempt attempt = this.locks.tryAcquire(key, Duration.ofSeconds(30));
		assertThat(attempt.isAcquired()).isTrue();
		return attempt.lease();
	}

	private <T> T proxy(T target) {
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new ExclusiveRequestAdvisor(new ExclusiveRequestAttributeSource(), this.interceptor));
		@SuppressWarnings("unchecked")
		T proxy = (T) factory.getProxy();
		return proxy;
	}

	static class Exports {

		final AtomicInteger runs = new AtomicInteger();

		final List<LockException> fallbacks = new CopyOnWriteArrayList<>();

		@ExclusiveRequest(name = "exports", key = "#tenant", fallback = "queued")
		public String export(String tenant, int rows) {
			this.runs.incrementAndGet();
			return "export of " + tenant + ", " + rows + " rows";
		}

		String queued(String tenant, int rows, LockConflictException conflict) {
			this.fallbacks.add(conflict);
			return "queued " + tenant + " (" + rows + " rows): " + conflict.getLockName();
		}

		@ExclusiveRequest(name = "reports", key = "#id", fallback = "producing")
		public String report(long id) {
			this.runs.incrementAndGet();
			return "report " + id;
		}

		public String producing(Long id) {
			return "report " + id + " is being produced";
		}

		@ExclusiveRequest(name = "retried", key = "#tenant", retries = 2, retryInterval = "20ms", fallback = "busy")
		public String retried(String tenant) {
			this.runs.incrementAndGet();
			return "ran " + tenant;
		}

		String busy(String tenant) {
			return "retried " + tenant + ": busy";
		}

		@ExclusiveRequest(name = "nested", key = "#tenant", fallback = "notNested")
		public String nested(String tenant) {
			throw new LockConflictException("inner", Duration.ofSeconds(1));
		}

		String notNested(String tenant, LockConflictException conflict) {
			this.fallbacks.add(conflict);
			return "fallback";
		}

		@ExclusiveRequest(name = "strict", key = "#tenant", fallback = "refuse")
		public String strict(String tenant) {
			return tenant;
		}

		String refuse(String tenant) {
			throw new IllegalStateException("no capacity for " + tenant);
		}

		@ExclusiveRequest(name = "async", key = "#tenant", fallback = "later")
		public CompletionStage<String> async(String tenant) {
			this.runs.incrementAndGet();
			return CompletableFuture.completedFuture("now " + tenant);
		}

		CompletableFuture<String> later(String tenant) {
			return CompletableFuture.completedFuture("later " + tenant);
		}

		@ExclusiveRequest(name = "resilient", key = "#tenant", fallback = "degraded", fallbackOnStoreFailure = true)
		public String resilient(String tenant) {
			this.runs.incrementAndGet();
			return "resilient " + tenant;
		}

		String degraded(String tenant, LockException failure) {
			this.fallbacks.add(failure);
			return "degraded " + tenant;
		}

		@ExclusiveRequest(name = "mono", key = "#tenant", fallback = "monoFallback")
		public Mono<String> mono(String tenant) {
			return Mono.fromSupplier(() -> {
				this.runs.incrementAndGet();
				return "mono " + tenant;
			});
		}

		Mono<String> monoFallback(String tenant, LockConflictException conflict) {
			this.fallbacks.add(conflict);
			return Mono.just("mono fallback " + tenant + ": " + conflict.getLockName());
		}

		@ExclusiveRequest(name = "wide", key = "#tenant", fallback = "narrow")
		public Mono<CharSequence> wide(String tenant) {
			return Mono.just(tenant);
		}

		Mono<String> narrow(String tenant) {
			return Mono.just("narrow " + tenant);
		}

		@ExclusiveRequest(name = "flux", key = "#tenant", fallback = "cached")
		public Flux<String> flux(String tenant, int count) {
			return Flux.range(0, count).map((i) -> {
				this.runs.incrementAndGet();
				return tenant + " " + i;
			});
		}

		Flux<String> cached(String tenant, int count, LockConflictException conflict) {
			return Flux.just("cached " + tenant, conflict.getLockName());
		}

		@ExclusiveRequest(name = "resilientMono", key = "#tenant", fallback = "degradedMono",
				fallbackOnStoreFailure = true)
		public Mono<String> resilientMono(String tenant) {
			return Mono.just("resilient " + tenant);
		}

		Mono<String> degradedMono(String tenant, RuntimeException failure) {
			this.fallbacks.add((LockException) failure);
			return Mono.just("degraded mono " + tenant);
		}

		@ExclusiveRequest(name = "failingFlux", key = "#tenant", fallback = "notFailing")
		public Flux<String> failingFlux(String tenant) {
			return Flux.error(new LockConflictException("inner", Duration.ofSeconds(1)));
		}

		Flux<String> notFailing(String tenant, LockConflictException conflict) {
			this.fallbacks.add(conflict);
			return Flux.just("fallback");
		}

	}

}
