package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveJob;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @ExclusiveJob} in two applications with
 * {@code spring.threads.virtual.enabled=true} on one real Redis: Spring Boot's scheduler
 * then runs every tick on a virtual thread. The job's runs, on both instances, never
 * overlap, and every run is on a virtual thread.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class ExclusiveJobVirtualThreadsIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	/** Runs in progress, over both instances. */
	static final AtomicInteger running = new AtomicInteger();

	/** The most runs in progress at once seen by any run. */
	static final AtomicInteger mostAtOnce = new AtomicInteger();

	/** Runs by thread kind. */
	static final ConcurrentHashMap<String, AtomicInteger> runs = new ConcurrentHashMap<>();

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	@BeforeEach
	void reset() {
		redis.server().command("FLUSHALL");
		running.set(0);
		mostAtOnce.set(0);
		runs.clear();
	}

	@AfterEach
	void close() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void ticksOnVirtualThreadsOfTwoInstancesNeverOverlap() throws Exception {
		start();
		start();
		await().atMost(Duration.ofSeconds(3))
			.pollInterval(Duration.ofMillis(50))
			.untilAsserted(() -> assertThat(runs.values().stream().mapToInt(AtomicInteger::get).sum())
				.as("runs in 3 s of a job every 100 ms")
				.isGreaterThanOrEqualTo(5));
		this.contexts.forEach(ConfigurableApplicationContext::close);
		assertThat(runs).containsOnlyKeys("virtual");
		assertThat(mostAtOnce).as("runs in progress at once, over both instances").hasValue(1);
	}

	private void start() {
		this.contexts.add(new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "spring.threads.virtual.enabled=true",
					"spring.task.scheduling.shutdown.await-termination=true",
					"spring.task.scheduling.shutdown.await-termination-period=5s")
			.run());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableScheduling
	static class App {

		@Bean
		Sync sync() {
			return new Sync();
		}

	}

	static class Sync {

		// Each run takes 150 ms, longer than the period: without the lock the runs of
		// the two instances would overlap
		@Scheduled(fixedRate = 100)
		@ExclusiveJob(holdAtLeast = "20ms")
		public void run() throws InterruptedException {
			int atOnce = running.incrementAndGet();
			mostAtOnce.accumulateAndGet(atOnce, Math::max);
			try {
				runs.computeIfAbsent(isVirtual(Thread.currentThread()) ? "virtual" : "platform",
						(kind) -> new AtomicInteger())
					.incrementAndGet();
				Thread.sleep(150);
			}
			finally {
				running.decrementAndGet();
			}
		}

		private static boolean isVirtual(Thread thread) {
			try {
				return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
			}
			catch (ReflectiveOperationException ex) {
				throw new IllegalStateException(ex);
			}
		}

	}

}
