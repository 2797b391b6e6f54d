package dev.lockstarter.autoconfigure;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import dev.lockstarter.core.FinishedAttempt;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockListener;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockResults;
import dev.lockstarter.core.SharedFailureException;
import dev.lockstarter.interceptor.ExclusiveRequestAttributeSource;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.util.ReflectionUtils;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.server.ResponseStatusException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Single-flight ({@code onConflict = SHARE_RESULT}) over two application contexts that
 * share one real Redis: the holder's result, failure and death, and the expiry of kept
 * results.
 */
class SingleFlightIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration TTL = Duration.ofSeconds(1);

	/**
	 * The lease of the holder process, renewed while it lives: long enough that a JVM
	 * starved of CPU on a loaded machine (its renewals late by a second or more) still
	 * holds it until it is killed.
	 */
	private static final Duration HOLDER_TTL = Duration.ofSeconds(3);

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeAll
	static void startInstances() {
		first = start("one");
		second = start("two");
	}

	@AfterAll
	static void stopInstances() {
		second.close();
		first.close();
	}

	static ConfigurableApplicationContext start(String instance, String... extraProperties) {
		List<String> properties = new ArrayList<>(List.of("spring.main.banner-mode=off", "lock.store=redis",
				"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
				"lock.ttl=" + TTL.toMillis() + "ms", "reports.instance=" + instance));
		properties.addAll(List.of(extraProperties));
		return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties(properties.toArray(String[]::new))
			.run();
	}

	@AfterEach
	void stopThreads() {
		this.executor.shutdownNow();
	}

	@Test
	void fiveSimultaneousCallersOnTwoInstancesRunTheMethodOnceAndGetTheSameResult() throws Exception {
		String id = "five";
		Reports.expectCallers(id, 5);
		List<Future<Report>> calls = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			Reports reports = reports(i % 2 == 0 ? first : second);
			calls.add(this.executor.submit(() -> reports.report(id, Reports.arrived(id))));
		}
		List<Report> results = results(calls);
		assertThat(Reports.runs(id)).isEqualTo(1);
		assertThat(results).hasSize(5).allSatisfy((result) -> assertThat(result).isEqualTo(results.get(0)));
		assertThat(results.get(0).run()).isEqualTo(1);
		assertThat(results.get(0).lines()).containsExactly(List.of(1, 2), List.of(3));
		assertThat(Reports.overlaps.get()).isZero();
	}

	@Test
	void followersWokenByTheReleaseReadTheResultWithoutTakingTheLock() throws Exception {
		// Before, each follower took the lock in turn to read the result: one acquisition
		// per caller. Now a follower stops waiting when the release wakes it and finds
		// the new result
		String id = "crowd";
		int callers = 20;
		Reports.expectCallers(id, callers);
		List<Future<Report>> calls = new ArrayList<>();
		for (int i = 0; i < callers; i++) {
			Reports reports = reports(i % 2 == 0 ? first : second);
			calls.add(this.executor.submit(() -> reports.report(id, Reports.arrived(id))));
		}
		List<Report> results = results(calls);
		assertThat(Reports.runs(id)).isEqualTo(1);
		assertThat(results).hasSize(callers).allSatisfy((result) -> assertThat(result.run()).isEqualTo(1));
		String key = lockKey("report", id, 0L);
		List<FinishedAttempt> acquired = Acquisitions.of(key, FinishedAttempt.Outcome.ACQUIRED);
		List<FinishedAttempt> stopped = Acquisitions.of(key, FinishedAttempt.Outcome.STOPPED);
		// Every caller either acquired or stopped waiting because the result was there.
		// Besides the holder, a follower may acquire: one whose try (its first, or one
		// after a poll) reached Redis just after the release found the lock free and
		// took it together with the kept result, so the method still ran once. Taking
		// the lock in turn to read the result, as before, would leave none stopped
		assertThat(acquired.size() + stopped.size()).isEqualTo(callers);
		assertThat(stopped).allMatch(FinishedAttempt::waited);
		// The holder ran for 800 ms after every caller arrived, so most followers were
		// asleep in their wait when the release woke them
		assertThat(stopped).hasSizeGreaterThanOrEqualTo(callers / 2);
		assertThat(Reports.overlaps.get()).isZero();
	}

	@Test
	void concurrencyCheckDetectsTwoBodiesAtOnceWithoutTheLock() throws Exception {
		String id = "unguarded";
		Reports.expectCallers(id, 2);
		Reports reports = reports(first);
		results(List.of(this.executor.submit(() -> reports.unguarded(id, Reports.arrived(id))),
				this.executor.submit(() -> reports.unguarded(id, Reports.arrived(id)))));
		assertThat(Reports.runs(id)).isEqualTo(2);
		assertThat(Reports.overlaps.getAndSet(0)).isPositive();
	}

	@Test
	void callersAfterTheHolderFinishedRunTheMethodAgain() {
		Reports reports = reports(first);
		assertThat(reports.report("sequential", 0).run()).isEqualTo(1);
		assertThat(reports(second).report("sequential", 0).run()).isEqualTo(2);
		assertThat(reports.report("sequential", 0).run()).isEqualTo(3);
	}

	@Test
	void followersGetTheHoldersExceptionTypeMessageAndStatus() throws Exception {
		String id = "unavailable";
		Reports.expectCallers(id, 4);
		List<Future<Report>> calls = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			Reports reports = reports(i % 2 == 0 ? first : second);
			calls.add(this.executor.submit(() -> reports.unavailable(id, Reports.arrived(id))));
		}
		for (Future<Report> call : calls) {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(ReportUnavailableException.class)
				.withMessage("report unavailable (run 1)");
		}
		assertThat(Reports.runs(id)).isEqualTo(1);
	}

	@Test
	void followersGetAResponseStatusExceptionWithTheHoldersStatusAndReason() throws Exception {
		String id = "teapot";
		Reports.expectCallers(id, 2);
		Future<Report> holder = this.executor.submit(() -> reports(first).teapot(id, Reports.arrived(id)));
		Future<Report> follower = this.executor.submit(() -> reports(second).teapot(id, Reports.arrived(id)));
		for (Future<Report> call : List.of(holder, follower)) {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOfSatisfying(ResponseStatusException.class, (ex) -> {
					assertThat(ex.getStatusCode().value()).isEqualTo(418);
					assertThat(ex.getReason()).isEqualTo("short and stout");
				});
		}
		assertThat(Reports.runs(id)).isEqualTo(1);
	}

	@Test
	void followersGetASharedFailureNamingAnExceptionThatCannotBeCreatedAgain() throws Exception {
		String id = "opaque";
		Reports.expectCallers(id, 2);
		Future<Report> holder = this.executor.submit(() -> reports(first).opaque(id, Reports.arrived(id)));
		Future<Report> follower = this.executor.submit(() -> reports(second).opaque(id, Reports.arrived(id)));
		List<Throwable> failures = new ArrayList<>();
		for (Future<Report> call : List.of(holder, follower)) {
			failures.add(
					assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(10, TimeUnit.SECONDS))
						.actual()
						.getCause());
		}
		assertThat(failures).filteredOn(OpaqueFailure.class::isInstance).hasSize(1);
		assertThat(failures).filteredOn(SharedFailureException.class::isInstance)
			.singleElement()
			.isInstanceOfSatisfying(SharedFailureException.class, (ex) -> {
				assertThat(ex.getFailureType()).isEqualTo(OpaqueFailure.class.getName());
				assertThat(ex.getStatus()).isEqualTo(502);
				assertThat(ex.getLockName()).isEqualTo("opaque");
			});
		assertThat(Reports.runs(id)).isEqualTo(1);
	}

	@Test
	void withTakeOverOneFollowerRunsAfterTheHolderThrowsAndTheOthersGetItsResult() throws Exception {
		String id = "flaky";
		Reports.expectCallers(id, 4);
		List<Future<Report>> calls = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			Reports reports = reports(i % 2 == 0 ? first : second);
			calls.add(this.executor.submit(() -> reports.flaky(id, Reports.arrived(id))));
		}
		List<Report> results = new ArrayList<>();
		int failed = 0;
		for (Future<Report> call : calls) {
			try {
				results.add(call.get(10, TimeUnit.SECONDS));
			}
			catch (ExecutionException ex) {
				assertThat(ex.getCause()).isInstanceOf(IllegalStateException.class).hasMessage("first run fails");
				failed++;
			}
		}
		assertThat(failed).isEqualTo(1);
		assertThat(Reports.runs(id)).isEqualTo(2);
		assertThat(results).hasSize(3).allSatisfy((result) -> assertThat(result.run()).isEqualTo(2));
		assertThat(Reports.overlaps.get()).isZero();
	}

	@Test
	void followerTakesOverWithinTheTtlWhenTheHolderProcessIsKilled() throws Exception {
		String id = "killed";
		// An earlier run leaves its result, still within its time-to-live: the followers
		// of the
		// killed holder must not take it for the killed holder's.
		assertThat(reports(first).report(id, 0).run()).isEqualTo(1);
		Process holder = startHolderProcess(lockKey("report", id, 0L));
		try {
			Reports.expectCallers(id, 3);
			List<Future<Report>> followers = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				Reports reports = reports(i % 2 == 0 ? first : second);
				followers.add(this.executor.submit(() -> reports.reportAfterHolderProcess(id, 0)));
			}
			await().during(HOLDER_TTL.dividedBy(2))
				.atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(50))
				.untilAsserted(() -> assertThat(followers).noneMatch(Future::isDone));
			assertThat(Reports.runs(id)).isEqualTo(1);
			holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			long killedAt = System.nanoTime();
			List<Report> results = results(followers);
			Duration takeOver = Duration.ofNanos(System.nanoTime() - killedAt);
			assertThat(takeOver).isLessThan(HOLDER_TTL.plusSeconds(3));
			assertThat(Reports.runs(id)).isEqualTo(2);
			assertThat(results).allSatisfy((result) -> assertThat(result.run()).isEqualTo(2));
			assertThat(Reports.overlaps.get()).isZero();
		}
		finally {
			holder.destroyForcibly();
		}
	}

	@Test
	void followerOfAnAbandonedHolderDoesNotRethrowAnEarlierRunsFailure() throws Exception {
		String id = "abandoned";
		assertThatExceptionOfType(ReportUnavailableException.class).isThrownBy(() -> reports(first).unavailable(id, 0));
		String key = lockKey("unavailable", id, 0L);
		Lease abandoned = first.getBean(LockOperations.class)
			.acquire(key, LockOptions.ttl(Duration.ofMillis(500)).withRenewal(false));
		assertThat(abandoned.isHeld()).isTrue();
		Report report = reports(second).unavailableOnce(id);
		assertThat(report.run()).isEqualTo(2);
	}

	@Test
	void voidMethodFollowersWaitForTheHolderToComplete() throws Exception {
		String id = "touch";
		Reports.expectCallers(id, 3);
		List<Future<?>> calls = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			Reports reports = reports(i % 2 == 0 ? first : second);
			calls.add(this.executor.submit(() -> {
				reports.touch(id, Reports.arrived(id));
				assertThat(Reports.touched.get(id)).isNotNull();
				return null;
			}));
		}
		results(calls);
		assertThat(Reports.runs(id)).isEqualTo(1);
	}

	@Test
	void completionStageFollowersGetTheHoldersAsynchronousResult() throws Exception {
		String id = "async";
		Reports.expectCallers(id, 3);
		List<Future<Report>> calls = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			Reports reports = reports(i % 2 == 0 ? first : second);
			calls.add(this.executor.submit(() -> reports.async(id, Reports.arrived(id)).get(10, TimeUnit.SECONDS)));
		}
		List<Report> results = results(calls);
		assertThat(Reports.runs(id)).isEqualTo(1);
		assertThat(results).allSatisfy((result) -> assertThat(result).isEqualTo(results.get(0)));
	}

	@Test
	void resultThatCannotBeSerializedFailsTheHolderAndFollowersNamingTheMethod() throws Exception {
		String id = "opaque-result";
		Reports.expectCallers(id, 2);
		Future<Object> holder = this.executor.submit(() -> reports(first).unserializable(id, Reports.arrived(id)));
		Future<Object> follower = this.executor.submit(() -> reports(second).unserializable(id, Reports.arrived(id)));
		for (Future<Object> call : List.of(holder, follower)) {
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(10, TimeUnit.SECONDS))
				.havingCause()
				.isInstanceOf(IllegalStateException.class)
				.withMessageContaining("Reports.unserializable(String, long)")
				.withMessageContaining("cannot be serialized");
		}
		assertThat(Reports.runs(id)).isEqualTo(1);
	}

	@Test
	void keptResultExpiresAfterItsResultTtl() throws Exception {
		Reports reports = reports(first);
		assertThat(reports.shortLived("brief").run()).isEqualTo(1);
		LockResults results = second.getBean(LockOperations.class).results().orElseThrow();
		String key = lockKey("shortLived", "brief");
		assertThat(results.findResult(key)).isPresent();
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> results.findResult(key).isEmpty());
		assertThat(reports(second).shortLived("brief").run()).isEqualTo(2);
	}

	private static Reports reports(ConfigurableApplicationContext context) {
		return context.getBean(Reports.class);
	}

	/**
	 * Resolve the lock key of a call the way the interceptor does, without depending on
	 * its format.
	 */
	private static String lockKey(String methodName, Object... args) {
		Method method = ReflectionUtils.findMethod(Reports.class, methodName, (Class<?>[]) null);
		assertThat(method).isNotNull();
		return first.getBean(ExclusiveRequestAttributeSource.class)
			.getAttribute(method, Reports.class)
			.keyResolver()
			.resolve(args);
	}

	private static <T> List<T> results(List<? extends Future<? extends T>> calls) throws Exception {
		List<T> results = new ArrayList<>();
		for (Future<? extends T> call : calls) {
			results.add(call.get(20, TimeUnit.SECONDS));
		}
		return results;
	}

	private static Process startHolderProcess(String key) throws Exception {
		String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process process = new ProcessBuilder(javaBin, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
				System.getProperty("java.class.path"), SingleFlightHolderProcess.class.getName(), redis.host(),
				Integer.toString(redis.port()), first.getBean(LockProperties.class).getKeyPrefix(), key,
				Long.toString(HOLDER_TTL.toMillis()))
			.redirectErrorStream(true)
			.start();
		BufferedReader output = new BufferedReader(
				new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
		String line;
		do {
			line = output.readLine();
		}
		while (line != null && !line.equals(SingleFlightHolderProcess.HOLDING));
		assertThat(line).as("holder process output").isEqualTo(SingleFlightHolderProcess.HOLDING);
		Thread drain = new Thread(() -> {
			try {
				while (output.readLine() != null) {
					// discard
				}
			}
			catch (Exception ex) {
				// the process is gone
			}
		});
		drain.setDaemon(true);
		drain.start();
		return process;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		Reports reports(Environment environment) {
			return new Reports(environment.getProperty("reports.instance", "?"));
		}

		@Bean
		Acquisitions acquisitions() {
			return new Acquisitions();
		}

	}

	/** Records the finished acquisitions of both instances. */
	static class Acquisitions implements LockListener {

		static final List<FinishedAttempt> finished = new CopyOnWriteArrayList<>();

		/**
		 * The finished acquisitions of a key with an outcome, and whether they waited.
		 */
		static List<FinishedAttempt> of(String key, FinishedAttempt.Outcome outcome) {
			return finished.stream()
				.filter((acquisition) -> acquisition.key().equals(key) && acquisition.outcome() == outcome)
				.toList();
		}

		@Override
		public void acquisitionFinished(FinishedAttempt acquisition) {
			finished.add(acquisition);
		}

	}

	record Report(String id, int run, String instance, List<List<Integer>> lines) {
	}

	public static class Opaque {

		public String getValue() {
			throw new UnsupportedOperationException("no value");
		}

	}

	@ResponseStatus(HttpStatus.SERVICE_UNAVAILABLE)
	public static class ReportUnavailableException extends RuntimeException {

		public ReportUnavailableException(String message) {
			super(message);
		}

	}

	@ResponseStatus(HttpStatus.BAD_GATEWAY)
	public static class OpaqueFailure extends RuntimeException {

		public OpaqueFailure(int code) {
			super("upstream failed with " + code);
		}

	}

	static class Reports {

		static final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

		static final Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();

		static final Map<String, CountDownLatch> callers = new ConcurrentHashMap<>();

		static final Map<String, String> touched = new ConcurrentHashMap<>();

		static final AtomicInteger overlaps = new AtomicInteger();

		private final String instance;

		Reports(String instance) {
			this.instance = instance;
		}

		/** The next {@code count} calls with {@code id} arrive together. */
		static void expectCallers(String id, int count) {
			callers.put(id, new CountDownLatch(count));
		}

		/** A caller is about to call; returns how long the holder should still run. */
		static long arrived(String id) {
			callers.get(id).countDown();
			return 1;
		}

		static int runs(String id) {
			AtomicInteger count = runs.get(id);
			return (count != null) ? count.get() : 0;
		}

		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Report report(String id, long pause) {
			return run(id, pause, () -> new Report(id, runs(id), this.instance, List.of(List.of(1, 2), List.of(3))));
		}

		/**
		 * The same report for followers of the holder process, whose lease is
		 * {@code HOLDER_TTL}: they wait as long as the default wait time does for a lock
		 * of that TTL (twice the TTL).
		 */
		@ExclusiveRequest(name = "report", key = "#id", onConflict = OnConflict.SHARE_RESULT, waitTime = "6s")
		public Report reportAfterHolderProcess(String id, long pause) {
			return report(id, pause);
		}

		public Report unguarded(String id, long pause) {
			return run(id, pause, () -> new Report(id, runs(id), this.instance, List.of()));
		}

		@ExclusiveRequest(name = "unavailable", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Report unavailable(String id, long pause) {
			return run(id, pause, () -> {
				throw new ReportUnavailableException("report unavailable (run " + runs(id) + ")");
			});
		}

		/** Same lock as {@link #unavailable}; succeeds. */
		@ExclusiveRequest(name = "unavailable", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Report unavailableOnce(String id) {
			return run(id, 0, () -> new Report(id, runs(id), this.instance, List.of()));
		}

		@ExclusiveRequest(name = "teapot", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Report teapot(String id, long pause) {
			return run(id, pause, () -> {
				throw new ResponseStatusException(HttpStatus.I_AM_A_TEAPOT, "short and stout");
			});
		}

		@ExclusiveRequest(name = "opaque", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Report opaque(String id, long pause) {
			return run(id, pause, () -> {
				throw new OpaqueFailure(7);
			});
		}

		@ExclusiveRequest(name = "flaky", key = "#id", onConflict = OnConflict.SHARE_RESULT,
				onHolderFailure = OnHolderFailure.TAKE_OVER)
		public Report flaky(String id, long pause) {
			return run(id, pause, () -> {
				if (runs(id) == 1) {
					throw new IllegalStateException("first run fails");
				}
				return new Report(id, runs(id), this.instance, List.of());
			});
		}

		@ExclusiveRequest(name = "touch", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public void touch(String id, long pause) {
			run(id, pause, () -> touched.put(id, this.instance));
		}

		@ExclusiveRequest(name = "async", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public CompletableFuture<Report> async(String id, long pause) {
			return CompletableFuture.supplyAsync(
					() -> run(id, pause, () -> new Report(id, runs(id), this.instance, List.of(List.of(runs(id))))));
		}

		@ExclusiveRequest(name = "unserializable", key = "#id", onConflict = OnConflict.SHARE_RESULT)
		public Object unserializable(String id, long pause) {
			return run(id, pause, Opaque::new);
		}

		@ExclusiveRequest(name = "short", key = "#id", onConflict = OnConflict.SHARE_RESULT, resultTtl = "300ms")
		public Report shortLived(String id) {
			return run(id, 0, () -> new Report(id, runs(id), this.instance, List.of()));
		}

		/**
		 * Run a body as one run of {@code id}: counted, checked for overlap with another
		 * run of the same id, and, when callers are expected, held until they have all
		 * called and had time to reach their lock.
		 */
		private static <T> T run(String id, long pause, Supplier<T> body) {
			if (inside.computeIfAbsent(id, (k) -> new AtomicInteger()).incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			try {
				runs.computeIfAbsent(id, (k) -> new AtomicInteger()).incrementAndGet();
				CountDownLatch expected = (pause > 0) ? callers.get(id) : null;
				if (expected != null) {
					assertThat(expected.await(10, TimeUnit.SECONDS)).isTrue();
					Thread.sleep(800);
				}
				return body.get();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			finally {
				inside.get(id).decrementAndGet();
			}
		}

	}

}
