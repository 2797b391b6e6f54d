package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.store.LockStoreException;
import dev.lockstarter.test.fault.FaultProxy;
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
 * What {@code @ExclusiveRequest} does when a store other than Redis fails, through a
 * {@link FaultProxy} in front of its real server: it fails closed within about the
 * store's timeout, locks again once the network heals, and a lock granted by an
 * acquisition whose reply was lost is released by token once the store answers again.
 * Subclasses name the store.
 */
abstract class StoreFailureIntegrationTests {

	private final ExecutorService executor = Executors.newCachedThreadPool();

	static final AtomicInteger runs = new AtomicInteger();

	private ConfigurableApplicationContext context;

	protected FaultProxy proxy;

	/**
	 * Return the host of the real server.
	 */
	protected abstract String serverHost();

	/**
	 * Return the port of the real server.
	 */
	protected abstract int serverPort();

	/**
	 * Return the properties that select the store, reaching it at the proxy, with a one
	 * second timeout.
	 */
	protected abstract String[] storeProperties(FaultProxy proxy);

	/**
	 * Return whether the server holds an unexpired lock on {@code storeKey}, looking at
	 * it directly without taking it.
	 */
	protected abstract boolean isHeld(String storeKey);

	@BeforeEach
	void startProxy() {
		runs.set(0);
		this.proxy = FaultProxy.start(serverHost(), serverPort());
	}

	@AfterEach
	void closeContextAndProxy() throws Exception {
		this.executor.shutdownNow();
		if (this.context != null) {
			this.context.close();
		}
		this.proxy.close();
	}

	@Test
	void unresponsiveStoreFailsClosedWithinAboutTheTimeout() {
		FailingService service = start("lock.ttl=30s");
		String user = "u-" + UUID.randomUUID();
		service.register(user);
		this.proxy.blackhole();
		long started = System.nanoTime();
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> service.register(user));
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
		assertThat(runs).hasValue(1);
	}

	@Test
	void lockingWorksAgainOnceTheNetworkHeals() throws Exception {
		FailingService service = start("lock.ttl=30s");
		String user = "u-" + UUID.randomUUID();
		this.proxy.blackhole();
		assertThatExceptionOfType(LockStoreException.class).isThrownBy(() -> service.register(user));
		this.proxy.heal();
		awaitStoreAnswers();
		try (var lease = this.context.getBean(LockOperations.class)
			.acquire("FailingService.register:" + user, Duration.ofSeconds(30))) {
			assertThatExceptionOfType(LockConflictException.class).isThrownBy(() -> service.register(user));
		}
		service.register(user);
		assertThat(runs).hasValue(1);
	}

	@Test
	void lockGrantedByAnAcquireWhoseReplyWasLostIsReleasedSoonAfterTheNetworkHeals() throws Exception {
		FailingService service = start("lock.ttl=60s");
		String user = "u-" + UUID.randomUUID();
		String storeKey = "lock:FailingService.register:" + user;
		service.register(user);
		this.proxy.dropReplies();
		CompletableFuture<Void> call = CompletableFuture.runAsync(() -> service.register(user), this.executor);
		awaitHeld(storeKey, true);
		// The reply is lost; then the store becomes unreachable, so the release
		// by token that follows the client's timeout cannot get through either.
		this.proxy.blackhole();
		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> call.get(10, TimeUnit.SECONDS))
			.withCauseInstanceOf(LockStoreException.class);
		assertThat(runs).hasValue(1);
		await().during(Duration.ofMillis(1500))
			.atMost(Duration.ofSeconds(3))
			.pollInterval(Duration.ofMillis(100))
			.untilAsserted(
					() -> assertThat(isHeld(storeKey)).as("orphan lock while the store is unreachable").isTrue());
		this.proxy.heal();
		long healed = System.nanoTime();
		awaitHeld(storeKey, false);
		assertThat(Duration.ofNanos(System.nanoTime() - healed)).as("time until the orphan is released")
			.isLessThan(Duration.ofSeconds(20));
	}

	private FailingService start(String... properties) {
		this.context = new SpringApplicationBuilder(FailingApp.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off")
			.properties(storeProperties(this.proxy))
			.properties(properties)
			.run();
		return this.context.getBean(FailingService.class);
	}

	private void awaitStoreAnswers() {
		LockOperations locks = this.context.getBean(LockOperations.class);
		await("the store answering again after the network healed").atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(100))
			.ignoreException(LockStoreException.class)
			.untilAsserted(() -> locks.tryAcquire("probe-" + UUID.randomUUID(), Duration.ofSeconds(1)).lease().close());
	}

	private void awaitHeld(String storeKey, boolean held) {
		await().atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(20))
			.untilAsserted(() -> assertThat(isHeld(storeKey)).as("lock on " + storeKey + " held").isEqualTo(held));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@Import(FailingService.class)
	static class FailingApp {

	}

	static class FailingService {

		@ExclusiveRequest(key = "#userName")
		public void register(String userName) {
			runs.incrementAndGet();
		}

	}

}
