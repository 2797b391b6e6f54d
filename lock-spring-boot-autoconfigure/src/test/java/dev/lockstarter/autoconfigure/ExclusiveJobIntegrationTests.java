package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.interceptor.InvalidExclusiveJobException;
import dev.lockstarter.test.fault.FaultProxy;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @ExclusiveJob} through the auto-configuration: two application instances on one
 * real Redis (reached through a {@link FaultProxy}), the ticks called by the test so that
 * they meet on purpose.
 */
@ExtendWith(OutputCaptureExtension.class)
class ExclusiveJobIntegrationTests {

	private static final long TIMEOUT_SECONDS = 10;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private FaultProxy proxy;

	@BeforeEach
	void startProxy() {
		redis.server().command("FLUSHALL");
		this.proxy = FaultProxy.start(redis.host(), redis.port());
	}

	@AfterEach
	void closeContextsAndProxy() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
		this.proxy.close();
	}

	@Test
	void tickRunsOnOneInstanceAndIsSkippedQuietlyOnTheOther(CapturedOutput output) throws Exception {
		ConfigurableApplicationContext first = start();
		ConfigurableApplicationContext second = start();
		Report firstReport = first.getBean(Report.class);
		CountDownLatch finish = new CountDownLatch(1);
		firstReport.finishOn(finish);
		CompletableFuture<Void> running = CompletableFuture.runAsync(firstReport::send);
		assertThat(firstReport.entered().await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
		assertThat(redis.server().command("EXISTS", "lock:{Report.send}")).isEqualTo("1");
		second.getBean(Report.class).send();
		finish.countDown();
		running.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		assertThat(firstReport.runs()).isEqualTo(1);
		assertThat(second.getBean(Report.class).runs()).isZero();
		assertThat(ticks(first, "ran")).isEqualTo(1);
		assertThat(ticks(second, "skipped")).isEqualTo(1);
		assertThat(ticks(second, "ran")).isZero();
		assertThat(output).contains("Job 'Report.send' skipped on this instance: another instance holds its lock")
			.doesNotContain("ERROR");
		assertThat(output.getAll().lines().filter((line) -> line.contains("WARN")))
			.as("WARN lines of the starter's loggers (dev.lockstarter, abbreviated d.l.)")
			.noneMatch((line) -> line.contains("dev.lockstarter") || line.contains(" d.l."));
	}

	@Test
	void lockIsKeptForHalfTheScheduleAfterAFastRun() throws Exception {
		ConfigurableApplicationContext first = start();
		ConfigurableApplicationContext second = start();
		first.getBean(Report.class).send();
		long ttl = Long.parseLong(redis.server().command("PTTL", "lock:{Report.send}"));
		// fixedRate 2 s: held 1 s after it was taken
		assertThat(ttl).isBetween(1L, 1000L);
		second.getBean(Report.class).send();
		assertThat(second.getBean(Report.class).runs()).isZero();
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(() -> "0".equals(redis.server().command("EXISTS", "lock:{Report.send}")));
		second.getBean(Report.class).send();
		assertThat(second.getBean(Report.class).runs()).isEqualTo(1);
	}

	@Test
	void tickWithTheStoreDownDoesNotRunAndLogsOneWarnLineWithoutStackTrace(CapturedOutput output) {
		ConfigurableApplicationContext context = start();
		Report report = context.getBean(Report.class);
		this.proxy.refuse();
		report.send();
		assertThat(report.runs()).isZero();
		assertThat(ticks(context, "store-error")).isEqualTo(1);
		// Lettuce logs its reconnection attempts itself, with stack traces: look at the
		// job's line and the one after it
		List<String> lines = output.getAll().lines().toList();
		int warning = lines.indexOf(lines.stream()
			.filter((line) -> line.contains("WARN") && line.contains("ExclusiveJobInterceptor - Job 'Report.send' "
					+ "did not run on this instance: the lock store failed"))
			.findFirst()
			.orElseThrow());
		if (warning + 1 < lines.size()) {
			assertThat(lines.get(warning + 1)).as("no stack trace").matches("^\\d\\d:\\d\\d:\\d\\d.*");
		}
		assertThat(output.getAll()).doesNotContain("ERROR");
		this.proxy.heal();
		await().atMost(Duration.ofSeconds(TIMEOUT_SECONDS)).pollInterval(Duration.ofMillis(20)).until(() -> {
			report.send();
			return report.runs() > 0;
		});
		assertThat(report.runs()).isEqualTo(1);
	}

	@Test
	void invalidJobFailsStartupWithAnAnalysisNamingTheMethod() {
		SpringApplicationBuilder builder = new SpringApplicationBuilder(InvalidApp.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=memory");
		assertThatExceptionOfType(Exception.class).isThrownBy(builder::run).satisfies((ex) -> {
			Throwable cause = ex;
			while (!(cause instanceof InvalidExclusiveJobException) && cause.getCause() != null) {
				cause = cause.getCause();
			}
			assertThat(cause).isInstanceOf(InvalidExclusiveJobException.class);
			FailureAnalysis analysis = new InvalidLockDeclarationFailureAnalyzer().analyze(ex);
			assertThat(analysis).isNotNull();
			assertThat(analysis.getDescription()).isEqualTo("The @ExclusiveJob declaration on "
					+ Counting.class.getName() + ".count() is invalid: a job that returns a primitive int cannot be "
					+ "skipped, as a skipped tick has no value to return; return void or an object type (null when "
					+ "skipped)");
			assertThat(analysis.getAction()).contains(Counting.class.getName() + ".count()");
		});
	}

	private ConfigurableApplicationContext start() {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis",
					"spring.data.redis.host=" + this.proxy.host(), "spring.data.redis.port=" + this.proxy.port(),
					"spring.data.redis.timeout=1s", "spring.data.redis.connect-timeout=1s", "lock.redis.timeout=1s",
					"logging.level.dev.lockstarter.interceptor.ExclusiveJobInterceptor=debug")
			.run();
		this.contexts.add(context);
		return context;
	}

	private static double ticks(ConfigurableApplicationContext context, String outcome) {
		Counter counter = context.getBean(MeterRegistry.class)
			.find("lock.jobs")
			.tags("name", "Report.send", "store", "redis", "outcome", outcome)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		Report report() {
			return new Report();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class InvalidApp {

		@Bean
		Counting counting() {
			return new Counting();
		}

	}

	/**
	 * A job whose state is read through methods: the bean is a class-based proxy, whose
	 * own fields are not the target's.
	 */
	static class Report {

		private final AtomicInteger runs = new AtomicInteger();

		private final CountDownLatch entered = new CountDownLatch(1);

		private volatile CountDownLatch finish = new CountDownLatch(0);

		int runs() {
			return this.runs.get();
		}

		CountDownLatch entered() {
			return this.entered;
		}

		void finishOn(CountDownLatch finish) {
			this.finish = finish;
		}

		// Not scheduled here (no @EnableScheduling): the test calls the ticks
		@Scheduled(fixedRate = 2000)
		@ExclusiveJob
		public void send() {
			this.runs.incrementAndGet();
			this.entered.countDown();
			try {
				assertThat(this.finish.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)).isTrue();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	static class Counting {

		@Scheduled(fixedRate = 2000)
		@ExclusiveJob
		public int count() {
			return 1;
		}

	}

}
