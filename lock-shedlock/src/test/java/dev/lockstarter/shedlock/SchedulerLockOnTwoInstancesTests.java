package dev.lockstarter.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.LockOperations;
import dev.lockstarter.shedlock.ApplicationInstance.InstanceName;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two application instances, each with its own {@code LockTemplate} on one real Redis
 * server, schedule the same {@code @SchedulerLock} job every second: through
 * {@link LockOperationsLockProvider} each tick runs on exactly one of them, as the
 * {@link TickRecord} checker shows; the control runs the same instances on a provider
 * that grants every lock, and the checker reports the ticks that ran twice.
 */
class SchedulerLockOnTwoInstancesTests {

	/** Ticks to watch. */
	private static final int TICKS = 6;

	private static final Set<String> BOTH = Set.of("first", "second");

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final TickRecord ticks = new TickRecord();

	private final List<ApplicationInstance> instances = new ArrayList<>();

	@AfterEach
	void closeInstances() {
		this.instances.forEach(ApplicationInstance::close);
	}

	@Test
	void eachTickRunsOnceAcrossTwoInstances() throws InterruptedException {
		Set<Long> watched = watchTicks(LockOperationsLockProvider::new);
		System.out.printf("@SchedulerLock on two instances: %d ticks watched, %d fired by both, %d ran twice%n",
				watched.size(), this.ticks.firedByAll(BOTH).size(), this.ticks.doubleRuns().size());
		assertThat(this.ticks.doubleRuns()).as("ticks that ran twice; %s", this.ticks).isEmpty();
		assertThat(this.ticks.missedTicks()).as("ticks that fired and did not run; %s", this.ticks)
			.doesNotContainAnyElementsOf(watched);
		// Both instances fired the ticks, so the lock decided which one ran each
		assertThat(this.ticks.firedByAll(BOTH)).as("ticks fired by both instances; %s", this.ticks)
			.hasSizeGreaterThanOrEqualTo(TICKS);
		assertThat(this.ticks.ranBy().values()).as("instances that ran ticks")
			.allSatisfy((instances) -> assertThat(BOTH).containsAll(instances));
	}

	@Test
	void checkerReportsTheTicksThatRanTwiceOnAProviderThatGrantsEveryLock() throws InterruptedException {
		watchTicks((operations) -> (configuration) -> Optional.of(() -> {
		}));
		Set<Long> firedByBoth = this.ticks.firedByAll(BOTH);
		System.out.printf("Control, a provider that grants every lock: %d ticks fired by both, %d ran twice%n",
				firedByBoth.size(), this.ticks.doubleRuns().size());
		assertThat(firedByBoth).as("ticks fired by both instances; %s", this.ticks).hasSizeGreaterThanOrEqualTo(TICKS);
		assertThat(this.ticks.doubleRuns().keySet()).as("ticks that ran twice; %s", this.ticks)
			.containsAll(firedByBoth);
	}

	/**
	 * Start the two instances on the providers that {@code providers} builds, wait until
	 * more than {@link #TICKS} ticks ran after both started, and stop them.
	 * @return the watched ticks: those that began after both instances started and before
	 * the wait ended
	 */
	private Set<Long> watchTicks(Function<LockOperations, LockProvider> providers) {
		start("first", providers);
		start("second", providers);
		long firstWatched = TickRecord.currentTick() + 1;
		await("more than " + TICKS + " ticks run after both instances started").atMost(Duration.ofSeconds(TICKS * 4))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> this.ticks.ranBy().tailMap(firstWatched).size() > TICKS);
		long lastWatched = TickRecord.currentTick() - 1;
		closeInstances();
		Set<Long> watched = new TreeSet<>();
		for (long tick = firstWatched; tick <= lastWatched; tick++) {
			watched.add(tick);
		}
		assertThat(watched).as("ticks watched; %s", this.ticks).hasSizeGreaterThanOrEqualTo(TICKS);
		return watched;
	}

	private void start(String name, Function<LockOperations, LockProvider> providers) {
		Function<LockOperations, LockProvider> firing = (operations) -> {
			LockProvider provider = providers.apply(operations);
			return (configuration) -> {
				this.ticks.fired(name);
				return provider.lock(configuration);
			};
		};
		this.instances.add(ApplicationInstance.start(name, redis, firing,
				new Class<?>[] { Scheduling.class, TickJob.class }, this.ticks));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

	}

	/**
	 * The job: every second, records which instance ran the tick. The lock stays held for
	 * at least half the period, so that an instance that fires the same tick a little
	 * later still finds it held.
	 */
	static class TickJob {

		private final String instance;

		private final TickRecord ticks;

		TickJob(InstanceName instance, TickRecord ticks) {
			this.instance = instance.value();
			this.ticks = ticks;
		}

		@Scheduled(cron = "* * * * * *")
		@SchedulerLock(name = "tick", lockAtLeastFor = "500ms")
		public void tick() {
			this.ticks.ran(this.instance);
		}

	}

}
