package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.interceptor.ExclusiveRequestContext;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Waiting, minimum hold, renewal, reentrancy and fencing of {@code @ExclusiveRequest}
 * methods, against a real Redis.
 */
class ExclusiveRequestWaitingIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private ConfigurableApplicationContext context;

	private Jobs jobs;

	private final ExecutorService executor = Executors.newCachedThreadPool();

	@BeforeEach
	void start() {
		redis.server().command("FLUSHALL");
		this.context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.host=" + redis.host(), "lock.ttl=10s")
			.run();
		this.jobs = this.context.getBean(Jobs.class);
		Jobs.log.clear();
	}

	@AfterEach
	void stop() {
		this.executor.shutdownNow();
		this.context.close();
	}

	@Test
	void callerWithAWaitTimeRunsAfterTheHolderFinishes() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		Future<?> first = this.executor.submit(() -> this.jobs.waitingJob("j", entered, 300));
		assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
		this.jobs.waitingJob("j", new CountDownLatch(1), 0);
		first.get(5, TimeUnit.SECONDS);
		assertThat(Jobs.log).containsExactly("start j", "end j", "start j", "end j");
	}

	@Test
	void callerWithoutAWaitTimeIsRejectedWhileTheHolderRuns() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		Future<?> first = this.executor.submit(() -> this.jobs.impatientJob("j", entered, 300));
		assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(LockConflictException.class)
			.isThrownBy(() -> this.jobs.impatientJob("j", new CountDownLatch(1), 0));
		first.get(5, TimeUnit.SECONDS);
	}

	@Test
	void doubleClickShortlyAfterAFastCallIsStillRejected() throws Exception {
		this.jobs.submitForm("form-1");
		Thread.sleep(50);
		assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> this.jobs.submitForm("form-1"))
			.satisfies((ex) -> assertThat(ex.getRetryAfter()).isLessThanOrEqualTo(Duration.ofSeconds(2)));
		assertThat(Jobs.log).containsExactly("submitted form-1");
	}

	@Test
	void methodRunningForThreeTimesItsTtlKeepsItsLock() throws Exception {
		CountDownLatch entered = new CountDownLatch(1);
		Future<?> slow = this.executor.submit(() -> this.jobs.slowJob("s", entered));
		assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
		AtomicInteger rejected = new AtomicInteger();
		await().pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(50))
			.during(Duration.ofMillis(1200))
			.atMost(Duration.ofMillis(1450))
			.untilAsserted(() -> {
				assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> this.jobs.slowJob("s", null));
				rejected.incrementAndGet();
			});
		slow.get(5, TimeUnit.SECONDS);
		assertThat(rejected).hasValueGreaterThan(10);
		assertThat(Jobs.log).containsExactly("slow s");
	}

	@Test
	void nestedCallWithTheSameKeyThroughTheProxyDoesNotRejectItself() {
		assertThat(this.jobs.outer("acc-1")).isEqualTo("outer(inner)");
		assertThat(redis.server().command("EXISTS", "lock:{account:acc-1}")).isEqualTo("0");
	}

	@Test
	void nestedCallWithAnotherKeyTakesItsOwnLock() {
		assertThat(this.jobs.outerOtherKey("acc-1")).isEqualTo("outer(inner)");
	}

	@Test
	void annotatedMethodSeesItsFencingTokenAndItIncreases() {
		long first = this.jobs.fencedWrite("acc-1");
		long second = this.jobs.fencedWrite("acc-1");
		assertThat(first).isPositive();
		assertThat(second).isGreaterThan(first);
		assertThat(ExclusiveRequestContext.currentLease()).isNull();
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		Jobs jobs() {
			return new Jobs();
		}

		@Bean
		Accounts accounts() {
			return new Accounts();
		}

	}

	static class Jobs {

		static final List<String> log = new CopyOnWriteArrayList<>();

		@org.springframework.beans.factory.annotation.Autowired
		Accounts accounts;

		@ExclusiveRequest(key = "#name", waitTime = "5s")
		public void waitingJob(String name, CountDownLatch entered, long millis) {
			log.add("start " + name);
			entered.countDown();
			sleep(millis);
			log.add("end " + name);
		}

		@ExclusiveRequest(key = "#name")
		public void impatientJob(String name, CountDownLatch entered, long millis) {
			entered.countDown();
			sleep(millis);
		}

		@ExclusiveRequest(key = "#formId", holdAtLeast = "2s")
		public void submitForm(String formId) {
			log.add("submitted " + formId);
		}

		@ExclusiveRequest(key = "#name", ttl = "400ms")
		public void slowJob(String name, CountDownLatch entered) {
			log.add("slow " + name);
			entered.countDown();
			sleep(1500);
		}

		@ExclusiveRequest(name = "account", key = "#id")
		public String outer(String id) {
			return "outer(" + this.accounts.inner(id) + ")";
		}

		@ExclusiveRequest(name = "account-outer", key = "#id")
		public String outerOtherKey(String id) {
			return "outer(" + this.accounts.inner(id) + ")";
		}

		@ExclusiveRequest(name = "fenced", key = "#id")
		public long fencedWrite(String id) {
			Lease lease = ExclusiveRequestContext.currentLease();
			assertThat(lease).isNotNull();
			return ExclusiveRequestContext.currentFencingToken().orElseThrow();
		}

		private static void sleep(long millis) {
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

	static class Accounts {

		@ExclusiveRequest(name = "account", key = "#id")
		public String inner(String id) {
			assertThat(redis.server().command("EXISTS", "lock:{account:" + id + "}")).isEqualTo("1");
			return "inner";
		}

	}

}
