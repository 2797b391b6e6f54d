package dev.lockstarter.autoconfigure;

import java.io.InputStream;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import dev.lockstarter.interceptor.InvalidExclusiveRequestException;
import dev.lockstarter.result.JacksonResultCodec;
import dev.lockstarter.result.ResultCodec;
import dev.lockstarter.store.AcquireReply;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ResponseEntity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Startup checks and beans of single-flight ({@code onConflict = SHARE_RESULT}) methods.
 */
class ResultSharingAutoConfigurationTests {

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class, JacksonAutoConfiguration.class))
		.withPropertyValues("lock.store=memory");

	@Test
	void jacksonCodecIsConfiguredAndSharedResultsRoundTripInMemory() {
		this.contextRunner.withUserConfiguration(SharingService.Config.class).run((context) -> {
			assertThat(context).hasSingleBean(JacksonResultCodec.class);
			ResultCodec codec = context.getBean(ResultCodec.class);
			byte[] bytes = codec.encode(List.of(1, 2), SharingService.class.getMethod("values").getGenericReturnType());
			assertThat(codec.decode(bytes, SharingService.class.getMethod("values").getGenericReturnType()))
				.isEqualTo(List.of(1, 2));
			assertThat(context.getBean(SharingService.class).values()).containsExactly(1, 2);
		});
	}

	@Test
	void followerOnTheInMemoryStoreGetsTheHoldersResult() {
		// A thread each: the common pool may have a single thread on a small machine,
		// which would
		// start the follower only after the holder is done.
		ExecutorService callers = Executors.newFixedThreadPool(2);
		try {
			this.contextRunner.withUserConfiguration(SlowService.class).run((context) -> {
				SlowService service = context.getBean(SlowService.class);
				CompletableFuture<List<String>> holder = CompletableFuture.supplyAsync(() -> service.slow("k"),
						callers);
				assertThat(service.entered().await(10, TimeUnit.SECONDS)).isTrue();
				AtomicReference<Thread> followerThread = new AtomicReference<>();
				CompletableFuture<List<String>> follower = CompletableFuture.supplyAsync(() -> {
					followerThread.set(Thread.currentThread());
					return service.slow("k");
				}, callers);
				await("the follower parked").atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(10))
					.until(() -> {
						Thread thread = followerThread.get();
						return thread != null && (thread.getState() == Thread.State.WAITING
								|| thread.getState() == Thread.State.TIMED_WAITING);
					});
				assertThat(follower).isNotDone();
				service.proceed().countDown();
				assertThat(holder.get(10, TimeUnit.SECONDS)).containsExactly("k", "1");
				assertThat(follower.get(10, TimeUnit.SECONDS)).containsExactly("k", "1");
				assertThat(service.runs().get()).isEqualTo(1);
			});
		}
		finally {
			callers.shutdownNow();
		}
	}

	@Test
	void applicationCodecReplacesTheJacksonCodec() {
		this.contextRunner.withUserConfiguration(SharingService.Config.class, CustomCodec.class)
			.run((context) -> assertThat(context).hasSingleBean(ResultCodec.class)
				.doesNotHaveBean(JacksonResultCodec.class));
	}

	@Test
	void storeThatKeepsNoResultsFailsStartupNamingLockStoreAndTheMethod() {
		this.contextRunner.withUserConfiguration(SharingService.Config.class, ResultlessStore.class)
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.store")
				.hasMessageContaining("SharingService.values()"));
	}

	@Test
	void storeThatKeepsNoResultsIsFineWithoutSharingMethods() {
		this.contextRunner.withUserConfiguration(ResultlessStore.class)
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void streamResultFailsStartupNamingTheMethod() {
		assertInvalid(StreamService.class, "StreamService.open()", "InputStream");
	}

	@Test
	void responseEntityResultFailsStartupNamingTheMethod() {
		assertInvalid(ResponseEntityService.class, "ResponseEntityService.get()", "HttpEntity");
	}

	@Test
	void retriesCannotBeCombinedWithSharedResults() {
		assertInvalid(RetryingService.class, "RetryingService.get()", "retries and holdAtLeast");
	}

	@Test
	void resultTtlWithoutSharedResultsFailsStartup() {
		assertInvalid(MisplacedTtlService.class, "MisplacedTtlService.get()", "apply only with onConflict");
	}

	@Test
	void resultTtlMustBePositive() {
		this.contextRunner.withPropertyValues("lock.result-ttl=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.isInstanceOf(InvalidConfigurationPropertyValueException.class)
				.hasMessageContaining("lock.result-ttl"));
	}

	@Test
	void completionStageOfAValueIsAccepted() {
		this.contextRunner.withUserConfiguration(AsyncService.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(AsyncService.class).get().get()).isEqualTo("done");
		});
	}

	@Test
	void monoOfAValueIsAcceptedAndSharesItsValue() {
		this.contextRunner.withUserConfiguration(ReactiveService.class).run((context) -> {
			assertThat(context).hasNotFailed();
			ReactiveService service = context.getBean(ReactiveService.class);
			assertThat(service.get("k").block(Duration.ofSeconds(10))).containsExactly("k", "1");
			assertThat(context.getBean(dev.lockstarter.core.LockOperations.class)
				.results()
				.orElseThrow()
				.findResult("ReactiveService.get:k")).isPresent();
		});
	}

	@Test
	void fluxFailsStartupNamingTheMethod() {
		assertInvalid(FluxService.class, "FluxService.get()", "not supported for a reactive stream of several values");
	}

	private void assertInvalid(Class<?> service, String method, String reason) {
		this.contextRunner.withUserConfiguration(service).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			while (failure != null && !(failure instanceof InvalidExclusiveRequestException)) {
				failure = failure.getCause();
			}
			assertThat(failure).isInstanceOf(InvalidExclusiveRequestException.class)
				.hasMessageContaining(method)
				.hasMessageContaining(reason);
		});
	}

	static class SharingService {

		@ExclusiveRequest(onConflict = OnConflict.SHARE_RESULT)
		public List<Integer> values() {
			return List.of(1, 2);
		}

		@Configuration(proxyBeanMethods = false)
		static class Config {

			@Bean
			SharingService sharingService() {
				return new SharingService();
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SlowService {

		final CountDownLatch entered = new CountDownLatch(1);

		final CountDownLatch proceed = new CountDownLatch(1);

		final AtomicInteger runs = new AtomicInteger();

		@ExclusiveRequest(key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public List<String> slow(String id) {
			int run = this.runs.incrementAndGet();
			this.entered.countDown();
			try {
				assertThat(this.proceed.await(10, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			return List.of(id, Integer.toString(run));
		}

		public CountDownLatch entered() {
			return this.entered;
		}

		public CountDownLatch proceed() {
			return this.proceed;
		}

		public AtomicInteger runs() {
			return this.runs;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomCodec {

		@Bean
		ResultCodec customCodec() {
			return new ResultCodec() {

				@Override
				public byte[] encode(Object value, Type type) {
					return String.valueOf(value).getBytes();
				}

				@Override
				public Object decode(byte[] bytes, Type type) {
					return new String(bytes);
				}

			};
		}

	}

	/**
	 * A real in-memory store seen only through the plain {@link LockStore} interface, as
	 * a store without results.
	 */
	@Configuration(proxyBeanMethods = false)
	static class ResultlessStore {

		@Bean
		LockStore resultlessStore() {
			InMemoryLockStore store = new InMemoryLockStore();
			return new LockStore() {

				@Override
				public AcquireReply tryAcquire(String key, String token, Duration ttl) {
					return store.tryAcquire(key, token, ttl);
				}

				@Override
				public boolean release(String key, String token) {
					return store.release(key, token);
				}

				@Override
				public boolean extend(String key, String token, Duration ttl) {
					return store.extend(key, token, ttl);
				}

				@Override
				public Duration timeToExpiry(String key) {
					return store.timeToExpiry(key);
				}

			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class StreamService {

		@Bean
		StreamService streamService() {
			return new StreamService();
		}

		@ExclusiveRequest(onConflict = OnConflict.SHARE_RESULT)
		public InputStream open() {
			return InputStream.nullInputStream();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ResponseEntityService {

		@Bean
		ResponseEntityService responseEntityService() {
			return new ResponseEntityService();
		}

		@ExclusiveRequest(onConflict = OnConflict.SHARE_RESULT)
		public ResponseEntity<String> get() {
			return ResponseEntity.ok("x");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RetryingService {

		@Bean
		RetryingService retryingService() {
			return new RetryingService();
		}

		@ExclusiveRequest(onConflict = OnConflict.SHARE_RESULT, retries = 3, retryInterval = "100ms")
		public String get() {
			return "x";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class MisplacedTtlService {

		@Bean
		MisplacedTtlService misplacedTtlService() {
			return new MisplacedTtlService();
		}

		@ExclusiveRequest(resultTtl = "5s", onHolderFailure = OnHolderFailure.TAKE_OVER)
		public String get() {
			return "x";
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class AsyncService {

		@ExclusiveRequest(onConflict = OnConflict.SHARE_RESULT)
		public CompletableFuture<String> get() {
			return CompletableFuture.completedFuture("done");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ReactiveService {

		final AtomicInteger runs = new AtomicInteger();

		@ExclusiveRequest(key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Mono<List<String>> get(String id) {
			return Mono.fromSupplier(() -> List.of(id, Integer.toString(this.runs.incrementAndGet())));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class FluxService {

		@ExclusiveRequest(onConflict = OnConflict.SHARE_RESULT)
		public Flux<String> get() {
			return Flux.just("x");
		}

	}

}
