package dev.lockstarter.interceptor;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.core.InvalidLockKeyException;
import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStoreException;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link ExclusiveRequestInterceptor} on methods that return {@code Mono},
 * {@code Flux}, through an {@link ExclusiveRequestAdvisor} on a proxy, with a
 * {@link LockTemplate} on the in-memory store.
 */
class ReactiveExclusiveRequestTests {

	private static final Duration BLOCK = Duration.ofSeconds(10);

	private final InterceptedLocks intercepted = new InterceptedLocks();

	private final ExclusiveRequestInterceptorTests.SwitchableStore store = this.intercepted.store;

	private final LockTemplate locks = this.intercepted.locks;

	private final ExclusiveRequestAttributeSource attributeSource = this.intercepted.attributeSource;

	private final ExclusiveRequestInterceptor interceptor = this.intercepted.interceptor;

	private final AtomicInteger runs = new AtomicInteger();

	private final Registrations registrations = this.intercepted.proxy(new Registrations());

	@AfterEach
	void shutDown() {
		this.locks.destroy();
	}

	@Test
	void monoTakesTheLockOnSubscriptionAndReleasesItOnCompletion() {
		Mono<String> registration = this.registrations.register("alice", Duration.ZERO);
		assertThat(this.store.acquisitions).hasValue(0);
		assertThat(isHeld("alice")).isFalse();
		assertThat(registration.block(BLOCK)).isEqualTo("registered alice, held: true");
		assertThat(isHeld("alice")).isFalse();
		assertThat(this.locks.getHeldLocks()).isEmpty();
	}

	@Test
	void secondSubscriptionIsRejectedWithAConflictWhileTheFirstHoldsTheLock() {
		Disposable first = this.registrations.register("bob", Duration.ofSeconds(5)).subscribe();
		try {
			awaitHeld("bob");
			int runsBefore = this.runs.get();
			assertThatExceptionOfType(LockConflictException.class)
				.isThrownBy(() -> this.registrations.register("bob", Duration.ZERO).block(BLOCK))
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("registration"))
				.satisfies((ex) -> assertThat(ex.getRetryAfter()).isPositive());
			assertThat(this.runs).hasValue(runsBefore);
			assertThat(this.registrations.register("carol", Duration.ZERO).block(BLOCK)).startsWith("registered");
		}
		finally {
			first.dispose();
		}
	}

	@Test
	void cancellingTheSubscriptionReleasesTheLock() {
		Disposable first = this.registrations.register("dave", Duration.ofSeconds(20)).subscribe();
		awaitHeld("dave");
		first.dispose();
		awaitFree("dave");
		assertThat(this.registrations.register("dave", Duration.ZERO).block(BLOCK)).startsWith("registered");
	}

	@Test
	void errorOfTheMethodsPublisherReleasesTheLockAndPropagates() {
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.registrations.failing("erin").blockLast(BLOCK))
			.withMessage("points service down");
		assertThat(isHeld("erin")).isFalse();
	}

	@Test
	void exceptionThrownByTheMethodItselfReleasesTheLockAndIsAnErrorSignal() {
		Mono<String> call = this.registrations.throwing("frank");
		assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> call.block(BLOCK));
		assertThat(isHeld("frank")).isFalse();
	}

	@Test
	void fluxHoldsTheLockUntilItsLastElement() {
		List<String> seen = this.registrations.stream("gina", 3)
			.map((element) -> element + ":" + holdsALock())
			.collectList()
			.block(BLOCK);
		assertThat(seen).containsExactly("0:true", "1:true", "2:true");
		assertThat(isHeld("gina")).isFalse();
	}

	@Test
	void lockRequestObservationIsAChildOfTheSubscribersAndTheParentOfTheMethods() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler((context) -> true);
		this.interceptor.setObservationRegistry(() -> registry);
		Observation request = Observation.start("http.server.requests", registry);
		AtomicReference<@Nullable Object> seen = new AtomicReference<>();
		assertThat(this.registrations.observed("olga", seen)
			.contextWrite(Context.of(RequestObservations.OBSERVATION_CONTEXT_KEY, request))
			.block(BLOCK)).isEqualTo("olga");
		request.stop();
		assertThat(seen.get()).isInstanceOfSatisfying(Observation.class, (lockRequest) -> {
			assertThat(lockRequest.getContext().getName()).isEqualTo("lock.request");
			assertThat(lockRequest.getContext().getParentObservation()).isSameAs(request);
		});
	}

	@Test
	void nullKeyIsAnErrorSignalAndTheMethodIsNotInvoked() {
		int runs = this.runs.get();
		Mono<String> call = this.registrations.register(null, Duration.ZERO);
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> call.block(BLOCK));
		assertThat(this.runs).hasValue(runs);
	}

	@Test
	void storeFailureIsAnErrorSignalAndTheMethodIsNotInvoked() {
		this.store.failing = true;
		int runs = this.runs.get();
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> this.registrations.register("hank", Duration.ZERO).block(BLOCK));
		assertThat(this.runs).hasValue(runs);
	}

	@Test
	void storeFailureRunsTheMethodWithoutALockWhenFailOpen() {
		this.store.failing = true;
		this.interceptor.setStoreFailurePolicy(StoreFailurePolicy.FAIL_OPEN);
		assertThat(this.registrations.register("ivy", Duration.ZERO).block(BLOCK))
			.isEqualTo("registered ivy, held: false");
	}

	@Test
	void waiterWaitsWithoutAThreadAndRunsOnceTheHolderReleases() {
		Disposable first = this.registrations.register("jack", Duration.ofMillis(400)).subscribe();
		awaitHeld("jack");
		long started = System.nanoTime();
		assertThat(this.registrations.waiting("jack").block(BLOCK)).isEqualTo("waited jack");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(3));
		first.dispose();
	}

	@Test
	void lockIsRenewedWhileTheSubscriptionLives() {
		String outcome = this.registrations.slowWithShortTtl("kate").block(BLOCK);
		assertThat(outcome).isEqualTo("slow kate, held at the end: true");
		assertThat(isHeld("kate")).isFalse();
	}

	@Test
	void eachKeyLocksEveryKeyAndReleasesThemAll() {
		Disposable transfer = this.registrations.transfer("A", "B", Duration.ofSeconds(20)).subscribe();
		awaitHeld("account:A");
		assertThat(isHeld("account:B")).isTrue();
		assertThatExceptionOfType(LockConflictException.class)
			.isThrownBy(() -> this.registrations.transfer("C", "B", Duration.ZERO).blockLast(BLOCK));
		assertThat(isHeld("account:C")).isFalse();
		transfer.dispose();
		awaitFree("account:A");
		awaitFree("account:B");
	}

	@Test
	void resultSharingOnAMonoIsAcceptedAndSharesItsValueType() {
		Method method = ReflectionUtils.findMethod(SharingDeclarations.class, "sharedMono", String.class);
		ExclusiveRequestAttribute attribute = this.attributeSource.getAttribute(method, SharingDeclarations.class);
		assertThat(attribute.reactiveAdapter().isMultiValue()).isFalse();
		assertThat(attribute.resultSharing().resultType()).isEqualTo(String.class);
		assertThat(attribute.resultSharing().voidResult()).isFalse();
	}

	@Test
	void resultSharingOnAFluxIsRejectedAtStartupNamingTheMethod() {
		Method method = ReflectionUtils.findMethod(SharingDeclarations.class, "sharedFlux", String.class);
		assertThatExceptionOfType(InvalidExclusiveRequestException.class)
			.isThrownBy(() -> this.attributeSource.getAttribute(method, SharingDeclarations.class))
			.withMessageContaining("sharedFlux")
			.withMessageContaining("several values (Flux)")
			.withMessageContaining("return a Mono of the collected values");
	}

	@Test
	void reactiveReturnTypeIsDispatchedOnceAtParseTime() {
		Method mono = ReflectionUtils.findMethod(Registrations.class, "register", String.class, Duration.class);
		Method flux = ReflectionUtils.findMethod(Registrations.class, "stream", String.class, int.class);
		Method value = ReflectionUtils.findMethod(Registrations.class, "plain", String.class);
		Method stage = ReflectionUtils.findMethod(Registrations.class, "later", String.class);
		assertThat(this.attributeSource.getAttribute(stage, Registrations.class).reactiveAdapter()).isNull();
		assertThat(this.attributeSource.getAttribute(stage, Registrations.class).completionStage()).isTrue();
		assertThat(this.attributeSource.getAttribute(mono, Registrations.class).reactiveAdapter().isMultiValue())
			.isFalse();
		assertThat(this.attributeSource.getAttribute(flux, Registrations.class).reactiveAdapter().isMultiValue())
			.isTrue();
		assertThat(this.attributeSource.getAttribute(value, Registrations.class).reactiveAdapter()).isNull();
	}

	private boolean holdsALock() {
		return !this.locks.getHeldLocks().isEmpty();
	}

	private boolean isHeld(String user) {
		String key = user.startsWith("account:") ? user : "registration:" + user;
		LockAttempt attempt = this.locks.tryAcquire(key, Duration.ofSeconds(30));
		if (attempt.isAcquired()) {
			attempt.lease().close();
			return false;
		}
		return true;
	}

	/** Wait until a call holds the key; probes without acquiring, so never contends. */
	private void awaitHeld(String user) {
		String key = user.startsWith("account:") ? user : "registration:" + user;
		await("held").atMost(BLOCK)
			.pollInterval(Duration.ofMillis(1))
			.until(() -> this.locks.getHeldLocks().stream().anyMatch((held) -> held.key().equals(key)));
	}

	private void awaitFree(String key) {
		await("released").atMost(BLOCK).pollInterval(Duration.ofMillis(1)).until(() -> !isHeld(key));
	}

	class Registrations {

		@ExclusiveRequest(name = "registration", key = "#userName")
		public Mono<String> register(String userName, Duration delay) {
			ReactiveExclusiveRequestTests.this.runs.incrementAndGet();
			return Mono.delay(delay)
				.map((tick) -> "registered " + userName + ", held: " + ReactiveExclusiveRequestTests.this.holdsALock());
		}

		@ExclusiveRequest(name = "registration", key = "#userName")
		public Flux<String> failing(String userName) {
			return Flux.error(new IllegalStateException("points service down"));
		}

		@ExclusiveRequest(name = "registration", key = "#userName")
		public Mono<String> throwing(String userName) {
			throw new IllegalArgumentException("bad request for " + userName);
		}

		@ExclusiveRequest(name = "registration", key = "#userName")
		public Flux<String> stream(String userName, int count) {
			return Flux.range(0, count).map(String::valueOf);
		}

		@ExclusiveRequest(name = "registration", key = "#userName", waitTime = "5s")
		public Mono<String> waiting(String userName) {
			return Mono.just("waited " + userName);
		}

		@ExclusiveRequest(name = "registration", key = "#userName", ttl = "300ms")
		public Mono<String> slowWithShortTtl(String userName) {
			return Mono.delay(Duration.ofMillis(1000))
				.map((tick) -> "slow " + userName + ", held at the end: "
						+ ReactiveExclusiveRequestTests.this.isHeld(userName));
		}

		@ExclusiveRequest(name = "account", key = { "#from", "#to" }, eachKey = true)
		public Flux<String> transfer(String from, String to, Duration delay) {
			return Mono.delay(delay).thenMany(Flux.just(from, to));
		}

		@ExclusiveRequest(name = "registration", key = "#userName")
		public Mono<String> observed(String userName, AtomicReference<@Nullable Object> seen) {
			return Mono.deferContextual((context) -> {
				seen.set(context.getOrDefault(RequestObservations.OBSERVATION_CONTEXT_KEY, null));
				return Mono.just(userName);
			});
		}

		@ExclusiveRequest(name = "registration", key = "#userName")
		public String plain(String userName) {
			return userName;
		}

		@ExclusiveRequest(name = "registration", key = "#userName")
		public CompletableFuture<String> later(String userName) {
			return CompletableFuture.completedFuture(userName);
		}

	}

	static class SharingDeclarations {

		@ExclusiveRequest(key = "#userName", onConflict = OnConflict.SHARE_RESULT)
		public Mono<String> sharedMono(String userName) {
			return Mono.just(userName);
		}

		@ExclusiveRequest(key = "#userName", onConflict = OnConflict.SHARE_RESULT)
		public Flux<String> sharedFlux(String userName) {
			return Flux.just(userName);
		}

	}

}
