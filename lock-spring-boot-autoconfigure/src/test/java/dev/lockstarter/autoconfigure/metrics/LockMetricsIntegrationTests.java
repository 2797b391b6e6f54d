package dev.lockstarter.autoconfigure.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The lock meters, read from the application's real {@link MeterRegistry} after real lock
 * traffic on a real Redis.
 */
class LockMetricsIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static ConfigurableApplicationContext context;

	private static MeterRegistry meters;

	private static Accounts accounts;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.host=" + redis.host(),
					"spring.data.redis.port=" + redis.port(), "lock.ttl=10s")
			.run();
		meters = context.getBean(MeterRegistry.class);
		accounts = context.getBean(Accounts.class);
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@Test
	void twentySimultaneousCallsCountOneAcquisitionAndNineteenConflicts() throws Exception {
		int callers = 20;
		CountDownLatch ready = new CountDownLatch(callers);
		CountDownLatch go = new CountDownLatch(1);
		Accounts.release = new CountDownLatch(1);
		Accounts.entered = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(callers);
		try {
			List<Future<String>> calls = new ArrayList<>();
			for (int i = 0; i < callers; i++) {
				calls.add(pool.submit(() -> {
					ready.countDown();
					go.await();
					try {
						return accounts.open("alice");
					}
					catch (LockConflictException ex) {
						return "conflict";
					}
				}));
			}
			ready.await();
			go.countDown();
			assertThat(Accounts.entered.await(10, TimeUnit.SECONDS)).isTrue();
			await().atMost(Duration.ofSeconds(10))
				.until(() -> count("lock.acquisitions", "Accounts.open", "conflict") == callers - 1);
			assertThat(meters.get("lock.held.active").tag("name", "Accounts.open").longTaskTimer().activeTasks())
				.isEqualTo(1);
			Accounts.release.countDown();
			List<String> results = new ArrayList<>();
			for (Future<String> call : calls) {
				results.add(call.get(10, TimeUnit.SECONDS));
			}
			assertThat(results).containsOnlyOnce("opened alice");
			assertThat(count("lock.acquisitions", "Accounts.open", "acquired")).isEqualTo(1);
			assertThat(count("lock.acquisitions", "Accounts.open", "conflict")).isEqualTo(callers - 1);
			assertThat(meters.get("lock.held.active").tag("name", "Accounts.open").longTaskTimer().activeTasks())
				.isZero();
			assertThat(meters.get("lock.held")
				.tags("name", "Accounts.open", "store", "redis", "outcome", "released")
				.timer()
				.count()).isEqualTo(1);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@Test
	void aWaiterThatGivesUpIsCountedAsAWaitTimeout() throws Exception {
		LockOperations locks = context.getBean(LockOperations.class);
		try (Lease holder = locks.acquire("Accounts.close:bob", Duration.ofSeconds(10))) {
			assertThat(holder.isHeld()).isTrue();
			assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> accounts.close("bob"));
		}
		assertThat(count("lock.acquisitions", "Accounts.close", "wait-timeout")).isEqualTo(1);
		assertThat(meters.get("lock.waits").tags("name", "Accounts.close", "outcome", "wait-timeout").timer().count())
			.isEqualTo(1);
		assertThat(meters.get("lock.waits").tags("name", "Accounts.close").timer().totalTime(TimeUnit.MILLISECONDS))
			.isGreaterThanOrEqualTo(200);
	}

	@Test
	void aLeaseKilledInTheStoreIsCountedAsLost() {
		LockOperations locks = context.getBean(LockOperations.class);
		Lease lease = locks.acquire("victim:1", LockOptions.ttl(Duration.ofMillis(900)).withName("victim"));
		assertThat(meters.get("lock.held.active").tag("name", "victim").longTaskTimer().activeTasks()).isEqualTo(1);
		assertThat(redis.server().command("DEL", "lock:{victim:1}")).isEqualTo("1");
		await().atMost(Duration.ofSeconds(5))
			.until(() -> meters.find("lock.lost").tags("name", "victim").counter() != null
					&& meters.get("lock.lost").tags("name", "victim").counter().count() == 1);
		assertThat(lease.isHeld()).isFalse();
		assertThat(meters.get("lock.renewals").tags("name", "victim", "outcome", "lost").counter().count())
			.isEqualTo(1);
		assertThat(meters.get("lock.held.active").tag("name", "victim").longTaskTimer().activeTasks()).isZero();
		assertThat(meters.get("lock.held").tags("name", "victim", "outcome", "lost").timer().count()).isEqualTo(1);
	}

	@Test
	void aMultiKeyLeaseIsOneAcquisitionAndOneHeldLockPerKeyTaggedByNameOnly() {
		LockOperations locks = context.getBean(LockOperations.class);
		try (Lease lease = locks.acquire(List.of("transfer:erin", "transfer:frank"),
				LockOptions.ttl(Duration.ofSeconds(10)).withName("transfer"))) {
			assertThat(lease.isHeld()).isTrue();
			assertThat(meters.get("lock.held.active").tag("name", "transfer").longTaskTimer().activeTasks())
				.isEqualTo(2);
		}
		assertThat(count("lock.acquisitions", "transfer", "acquired")).isEqualTo(1);
		assertThat(meters.get("lock.held").tags("name", "transfer", "outcome", "released").timer().count())
			.isEqualTo(2);
		assertThat(meters.get("lock.held.active").tag("name", "transfer").longTaskTimer().activeTasks()).isZero();
		assertThat(meters.getMeters())
			.allSatisfy((meter) -> assertThat(meter.getId().getTags()).extracting(Tag::getValue)
				.noneMatch((value) -> value.contains("erin") || value.contains("frank")));
	}

	@Test
	void aRenewedLeaseCountsItsRenewals() throws Exception {
		LockOperations locks = context.getBean(LockOperations.class);
		try (Lease lease = locks.acquire("renewed:1", LockOptions.ttl(Duration.ofMillis(300)).withName("renewed"))) {
			await().atMost(Duration.ofSeconds(5))
				.until(() -> meters.find("lock.renewals")
					.tags("name", "renewed", "outcome", "renewed")
					.counter() != null
						&& meters.get("lock.renewals")
							.tags("name", "renewed", "outcome", "renewed")
							.counter()
							.count() >= 2);
			assertThat(lease.isHeld()).isTrue();
		}
		assertThat(meters.find("lock.lost").tags("name", "renewed").counter()).isNull();
	}

	@Test
	void aWaiterThatReceivesTheHoldersResultIsCounted() throws Exception {
		Accounts.release = new CountDownLatch(1);
		Accounts.entered = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(2);
		try {
			Future<String> holder = pool.submit(() -> accounts.balance("carol"));
			assertThat(Accounts.entered.await(10, TimeUnit.SECONDS)).isTrue();
			Future<String> follower = pool.submit(() -> accounts.balance("carol"));
			await().atMost(Duration.ofSeconds(5))
				.until(() -> meters.find("lock.acquisitions").tags("name", "Accounts.balance").meters().size() == 2);
			Accounts.release.countDown();
			assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("balance of carol");
			assertThat(follower.get(10, TimeUnit.SECONDS)).isEqualTo("balance of carol");
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(Accounts.balanceRuns).hasValue(1);
		assertThat(
				meters.get("lock.results.shared").tags("name", "Accounts.balance", "store", "redis").counter().count())
			.isEqualTo(1);
	}

	/**
	 * Every lock meter, those of the observations ({@code lock.request},
	 * {@code lock.acquire}, which Boot's observation handler turns into timers with an
	 * {@code error} tag) included.
	 */
	@Test
	void noMeterCarriesAKey() throws Exception {
		assertThat(accounts.close("dave-the-unique-user")).isEqualTo("closed dave-the-unique-user");
		List<Meter> lockMeters = meters.getMeters()
			.stream()
			.filter((meter) -> meter.getId().getName().startsWith("lock."))
			.toList();
		assertThat(lockMeters).isNotEmpty();
		assertThat(lockMeters).allSatisfy((meter) -> {
			assertThat(meter.getId().getTags()).extracting(Tag::getKey).isSubsetOf("name", "store", "outcome", "error");
			assertThat(meter.getId().getTags()).extracting(Tag::getValue).noneMatch((value) -> value.contains("dave"));
		});
	}

	private static double count(String meter, String name, String outcome) {
		var timer = meters.find(meter).tags("name", name, "store", "redis", "outcome", outcome).timer();
		return (timer != null) ? timer.count() : 0;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(Accounts.class)
	static class App {

	}

	static class Accounts {

		// Static: the test reaches the bean through its proxy, whose own fields the
		// methods never read.
		static volatile CountDownLatch entered = new CountDownLatch(1);

		static volatile CountDownLatch release = new CountDownLatch(0);

		static final AtomicInteger balanceRuns = new AtomicInteger();

		@ExclusiveRequest(key = "#user")
		String open(String user) throws InterruptedException {
			entered.countDown();
			release.await(10, TimeUnit.SECONDS);
			return "opened " + user;
		}

		@ExclusiveRequest(key = "#user", waitTime = "200ms")
		String close(String user) {
			return "closed " + user;
		}

		@ExclusiveRequest(key = "#user", onConflict = OnConflict.SHARE_RESULT)
		String balance(String user) throws InterruptedException {
			balanceRuns.incrementAndGet();
			entered.countDown();
			release.await(10, TimeUnit.SECONDS);
			return "balance of " + user;
		}

	}

}
