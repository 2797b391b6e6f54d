package dev.lockstarter.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTtlTooShortException;
import dev.lockstarter.core.ReactiveLockOperations;
import dev.lockstarter.integration.LockOperationsLockRegistry;
import dev.lockstarter.shedlock.LockOperationsLockProvider;
import dev.lockstarter.test.fault.FaultProxy;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A time-to-live shorter than the store takes to answer: Redis behind a
 * {@link FaultProxy} that delays every reply by {@link #LATENCY}, and locks of
 * {@link #TTL}. The store grants every lock, but confirms it after its time-to-live; each
 * way in reports that as it is, never as a store failure.
 */
class SlowStoreShortTtlIntegrationTests {

	private static final Duration TTL = Duration.ofMillis(40);

	private static final Duration LATENCY = Duration.ofMillis(150);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	static final AtomicInteger bodies = new AtomicInteger();

	private static FaultProxy proxy;

	private static ConfigurableApplicationContext context;

	private static LockOperations locks;

	private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

	@BeforeAll
	static void start() {
		proxy = FaultProxy.start(redis.host(), redis.port());
		context = new SpringApplicationBuilder(App.class)
			.properties("server.port=0", "spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=" + proxy.host(), "spring.data.redis.port=" + proxy.port(),
					"lock.ttl=" + TTL.toMillis() + "ms")
			.run();
		locks = context.getBean(LockOperations.class);
		// Connected, scripts loaded: the slow replies start now
		locks.tryAcquire("warm-up", Duration.ofSeconds(5)).lease().close();
		proxy.latency(LATENCY);
	}

	@AfterAll
	static void stop() {
		context.close();
		proxy.close();
	}

	@BeforeEach
	void resetBodies() {
		bodies.set(0);
	}

	@Test
	void annotatedEndpointAnswers503OfItsOwnTypeAndTheBodyDoesNotRun() throws Exception {
		HttpResponse<String> response = post("ann-" + UUID.randomUUID());
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(response.body()).contains("urn:lockstarter:problem:lock-ttl-too-short")
			.doesNotContain("lock-store-unavailable");
		assertThat(bodies).hasValue(0);
		assertCountedAsTtlTooShortAndNeverAsAStoreError();
	}

	@Test
	void templateThrowsTtlTooShortNamingTheTimeToLiveAndTheAnswer() {
		assertThatExceptionOfType(LockTtlTooShortException.class)
			.isThrownBy(() -> locks.tryAcquire("template-" + UUID.randomUUID(), LockOptions.ttl(TTL)))
			.satisfies((ex) -> {
				assertThat(ex.getTtl()).isEqualTo(TTL);
				assertThat(ex.getAnsweredAfter()).isGreaterThanOrEqualTo(LATENCY);
				assertThat(ex.getMessage()).contains("time-to-live of " + TTL.toMillis() + " ms");
			});
		assertCountedAsTtlTooShortAndNeverAsAStoreError();
	}

	@Test
	void reactiveTemplateSignalsTtlTooShort() {
		ReactiveLockOperations reactive = context.getBean(ReactiveLockOperations.class);
		assertThatExceptionOfType(LockTtlTooShortException.class)
			.isThrownBy(() -> reactive.tryAcquire("reactive-" + UUID.randomUUID(), LockOptions.ttl(TTL))
				.block(Duration.ofSeconds(10)));
		assertCountedAsTtlTooShortAndNeverAsAStoreError();
	}

	@Test
	void shedLockProviderHandsOutALockThatHasAlreadyExpired() {
		LockOperationsLockProvider provider = new LockOperationsLockProvider(locks);
		String name = "shedlock-" + UUID.randomUUID();
		Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), name, TTL, Duration.ZERO));
		assertThat(lock).as("a lock, as lockAtMostFor allows").isPresent();
		assertThat(lock.get().extend(Duration.ofSeconds(10), Duration.ZERO)).as("its extension").isEmpty();
		proxy.latency(Duration.ZERO);
		try {
			// The late grant is gone: released by its token, and past its time-to-live
			Optional<SimpleLock> next = provider
				.lock(new LockConfiguration(Instant.now(), name, Duration.ofSeconds(10), Duration.ZERO));
			assertThat(next).as("the name locked again").isPresent();
			next.get().unlock();
		}
		finally {
			proxy.latency(LATENCY);
		}
	}

	@Test
	void jobTickDoesNotRunAndCountsAsTtlTooShort() {
		Job job = context.getBean(Job.class);
		job.tick();
		assertThat(job.runs()).isZero();
		assertThat(ticks("ttl-too-short")).isEqualTo(1);
		assertThat(ticks("store-error")).isZero();
	}

	@Test
	void lockAdaptersThrowTtlTooShort() {
		Lock lock = locks.lock("lock-" + UUID.randomUUID(), LockOptions.ttl(TTL));
		assertThatExceptionOfType(LockTtlTooShortException.class).isThrownBy(lock::tryLock);
		LockOperationsLockRegistry registry = new LockOperationsLockRegistry(locks, LockOptions.ttl(TTL));
		Lock registryLock = registry.obtain("registry-" + UUID.randomUUID());
		assertThatExceptionOfType(LockTtlTooShortException.class)
			.isThrownBy(() -> registryLock.tryLock(1, TimeUnit.SECONDS));
	}

	private static void assertCountedAsTtlTooShortAndNeverAsAStoreError() {
		MeterRegistry meters = context.getBean(MeterRegistry.class);
		assertThat(acquisitions(meters, "ttl-too-short")).as("acquisitions counted as ttl-too-short").isPositive();
		assertThat(acquisitions(meters, "store-error")).as("acquisitions counted as store errors").isZero();
	}

	private static double ticks(String outcome) {
		Counter counter = context.getBean(MeterRegistry.class)
			.find("lock.jobs")
			.tags("name", "Job.tick", "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private static long acquisitions(MeterRegistry meters, String outcome) {
		return meters.find("lock.acquire").tag("outcome", outcome).timers().stream().mapToLong(Timer::count).sum();
	}

	private HttpResponse<String> post(String userName) throws IOException, InterruptedException {
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port")
					+ "/registrations?userName=" + userName))
			.timeout(Duration.ofSeconds(20))
			.POST(HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import({ SlowController.class, Job.class })
	static class App {

	}

	/**
	 * A job whose state is read through a method: the bean is a class-based proxy, whose
	 * own fields are not the target's.
	 */
	static class Job {

		private final AtomicInteger runs = new AtomicInteger();

		int runs() {
			return this.runs.get();
		}

		// Not scheduled here (no @EnableScheduling): the test calls the tick
		@Scheduled(fixedRate = 2000)
		@ExclusiveJob(ttl = "40ms", holdAtLeast = "0s")
		public void tick() {
			this.runs.incrementAndGet();
		}

	}

	@RestController
	static class SlowController {

		@PostMapping("/registrations")
		@ExclusiveRequest(key = "#userName")
		public ResponseEntity<String> register(@RequestParam String userName) {
			bodies.incrementAndGet();
			return ResponseEntity.status(HttpStatus.CREATED).body("registered");
		}

	}

}
