package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnLeaseLost;
import dev.lockstarter.core.LeaseLostException;
import dev.lockstarter.core.LockLostEvent;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * With renewal off ({@code lock.renew=false}), a method that runs past its lock's
 * time-to-live is told of the loss at the lease's local deadline, before the store lets
 * the lock go: {@code CANCEL} interrupts a blocking method and cancels a reactive one,
 * {@code REPORT} lets it run, and both publish the {@link LockLostEvent}. Before the
 * local deadline existed, a lease that was not renewed was never found lost.
 */
class LossByLocalDeadlineIntegrationTests {

	private static final Duration TTL = Duration.ofSeconds(1);

	/**
	 * The largest loss margin: the local deadline at half the time-to-live leaves half of
	 * it between the cancellation and the store's expiry, which a loaded machine's
	 * scheduling cannot use up, where the default tenth (100 ms) could be.
	 */
	private static final double LOSS_MARGIN = 0.5;

	private static ConfigurableApplicationContext context;

	@BeforeAll
	static void start() {
		context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=memory", "lock.renew=false",
					"lock.ttl=" + TTL.toMillis() + "ms", "lock.loss-margin=" + LOSS_MARGIN)
			.run();
	}

	@AfterAll
	static void stop() {
		context.close();
	}

	@BeforeEach
	void reset() {
		signals().lost.clear();
	}

	@Test
	void cancelInterruptsABlockingMethodAtItsLocalDeadline() {
		Worker worker = worker();
		assertThatExceptionOfType(LeaseLostException.class).isThrownBy(() -> worker.blocking("blocking"));
		// The lease was acquired just before the method entered
		assertThat(ranFor()).as("time the method ran")
			.isGreaterThanOrEqualTo(Duration.ofMillis((long) (TTL.toMillis() * (1 - LOSS_MARGIN))).minusMillis(50));
		assertStoppedBeforeTheStoreExpiry();
		assertPublished("deadline:blocking");
	}

	@Test
	void cancelCancelsAReactiveMethodAtItsLocalDeadline() throws Exception {
		Worker worker = worker();
		CompletableFuture<String> call = worker.reactive("reactive").toFuture();
		assertThat(failureOf(call)).isInstanceOf(LeaseLostException.class);
		assertStoppedBeforeTheStoreExpiry();
		assertPublished("deadline:reactive");
	}

	@Test
	void reportPublishesTheLossAndLetsTheMethodFinish() throws InterruptedException {
		Worker worker = worker();
		assertThat(worker.reported("reported")).isEqualTo("finished");
		assertPublished("deadline:reported");
	}

	/**
	 * The {@code LockLostEvent} is published on the thread that tells the listeners,
	 * after the loss actions (the cancellation) ran.
	 */
	private static void assertPublished(String key) {
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(signals().lost).containsExactly(key));
	}

	/**
	 * The method entered after its lease was acquired, so a method stopped less than a
	 * time-to-live after it entered was stopped before the store could let its lock go.
	 */
	private static void assertStoppedBeforeTheStoreExpiry() {
		assertThat(ranFor()).as("time the method ran after it entered").isLessThan(TTL);
	}

	private static Duration ranFor() {
		return Duration.ofNanos(signals().stoppedAt.get() - signals().enteredAt.get());
	}

	private static Throwable failureOf(CompletableFuture<?> future) throws Exception {
		try {
			future.get(10, TimeUnit.SECONDS);
		}
		catch (ExecutionException ex) {
			return ex.getCause();
		}
		throw new AssertionError("The call ended without a failure");
	}

	private static Worker worker() {
		return context.getBean(Worker.class);
	}

	private static Signals signals() {
		return context.getBean(Signals.class);
	}

	/** What the tests observe of the worker, which is proxied, so its fields are not. */
	static class Signals {

		final AtomicLong enteredAt = new AtomicLong();

		final AtomicLong stoppedAt = new AtomicLong();

		final List<String> lost = new CopyOnWriteArrayList<>();

		@EventListener
		void onLost(LockLostEvent event) {
			this.lost.add(event.key());
		}

	}

	static class Worker {

		private final Signals signals;

		Worker(Signals signals) {
			this.signals = signals;
		}

		@ExclusiveRequest(name = "deadline", key = "#key", onLeaseLost = OnLeaseLost.CANCEL)
		public String blocking(String key) throws InterruptedException {
			this.signals.enteredAt.set(System.nanoTime());
			try {
				Thread.sleep(TTL.multipliedBy(5).toMillis());
				return "finished";
			}
			finally {
				this.signals.stoppedAt.set(System.nanoTime());
			}
		}

		@ExclusiveRequest(name = "deadline", key = "#key", onLeaseLost = OnLeaseLost.CANCEL)
		public Mono<String> reactive(String key) {
			return Mono.fromRunnable(() -> this.signals.enteredAt.set(System.nanoTime()))
				.then(Mono.delay(TTL.multipliedBy(5)))
				.thenReturn("finished")
				.doOnCancel(() -> this.signals.stoppedAt.set(System.nanoTime()));
		}

		@ExclusiveRequest(name = "deadline", key = "#key", onLeaseLost = OnLeaseLost.REPORT)
		public String reported(String key) throws InterruptedException {
			Thread.sleep(TTL.plusMillis(200).toMillis());
			return "finished";
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

		@Bean
		Signals signals() {
			return new Signals();
		}

		@Bean
		Worker worker(Signals signals) {
			return new Worker(signals);
		}

	}

}
