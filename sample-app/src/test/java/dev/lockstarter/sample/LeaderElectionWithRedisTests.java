package dev.lockstarter.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.sample.leader.LeaderConfiguration;
import dev.lockstarter.test.redis.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of the sample app, each in a JVM of its own ({@link SampleProcess}), with
 * the {@code redis} profile and the leader election on, on one real Redis server: exactly
 * one of them leads, and when the leader is killed with {@code SIGKILL} the other takes
 * over once the dead leader's lock expired, within the lock's TTL plus one renewal period
 * (TTL/3) plus a stated scheduling slack. The failover time is printed.
 */
class LeaderElectionWithRedisTests {

	/** Short, so that the dead leader's lock expires soon. */
	private static final Duration LOCK_TTL = Duration.ofSeconds(3);

	/** The period at which a held lock is renewed: a third of its TTL. */
	private static final Duration RENEWAL_PERIOD = LOCK_TTL.dividedBy(3);

	/**
	 * Time, beyond the expiry, for the survivor's next attempt (its initiator tries every
	 * heartbeat, 500 ms), its {@code /api/leader} answer and this test's polling, on a
	 * machine shared with other builds.
	 */
	private static final Duration SCHEDULING_SLACK = Duration.ofSeconds(1);

	private static final Duration FAILOVER_BOUND = LOCK_TTL.plus(RENEWAL_PERIOD).plus(SCHEDULING_SLACK);

	/** How long both instances are sampled before the kill. */
	private static final Duration OBSERVATION = Duration.ofSeconds(4);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final SampleClient client = new SampleClient();

	private final List<SampleProcess> processes = new ArrayList<>();

	@AfterEach
	void stopProcesses() throws Exception {
		for (SampleProcess process : this.processes) {
			process.close();
		}
	}

	@Test
	void oneInstanceLeadsAndAfterTheLeaderIsKilledTheOtherLeadsWithinTheTtlAndOneRenewalPeriod() throws Exception {
		SampleProcess first = start("first");
		SampleProcess second = start("second");
		first.awaitListening();
		second.awaitListening();
		SampleProcess leader = awaitOneLeader(first, second);
		SampleProcess survivor = (leader == first) ? second : first;
		int samples = assertOneLeaderThroughout(leader, survivor);
		assertThat(samples).as("samples of both instances in %s", OBSERVATION).isGreaterThanOrEqualTo(10);

		long killedAt = System.nanoTime();
		assertThat(leader.kill()).as("exit value of the leader killed by SIGKILL").isEqualTo(SampleProcess.KILLED);
		Duration failover = awaitLeader(survivor, killedAt, FAILOVER_BOUND.plusSeconds(10));
		System.out.printf("Leader failover after kill -9: %d ms (lock.ttl %d ms, bound %d ms = TTL + TTL/3 + %d ms)%n",
				failover.toMillis(), LOCK_TTL.toMillis(), FAILOVER_BOUND.toMillis(), SCHEDULING_SLACK.toMillis());
		assertThat(failover).as("time from the kill until the survivor leads").isLessThanOrEqualTo(FAILOVER_BOUND);
		// The dead leader's lock was extended at least every renewal period: the survivor
		// can only have it once it expired
		assertThat(failover).as("time from the kill until the survivor leads").isGreaterThan(LOCK_TTL.dividedBy(2));

		assertThat(leader.output()).contains(granted(leader)).doesNotContain(" ERROR ");
		// /api/leader answers from the leadership's state, which is set before the
		// granted event is logged
		assertThat(survivor.awaitOutput(granted(survivor), Duration.ofSeconds(5))).contains(granted(survivor))
			.doesNotContain(revoked(survivor));
		survivor.stop();
		assertThat(survivor.output()).as("output of the survivor stopped by SIGTERM")
			.contains(revoked(survivor))
			.doesNotContain(" ERROR ");
	}

	/**
	 * Poll both instances until one of them leads, asserting that they never both do.
	 */
	private SampleProcess awaitOneLeader(SampleProcess first, SampleProcess second) {
		return await("a leader within 30 s; see " + first.log() + " and " + second.log()).atMost(Duration.ofSeconds(30))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				boolean firstLeads = leads(first);
				boolean secondLeads = leads(second);
				assertThat(firstLeads && secondLeads).as("both instances lead").isFalse();
				if (firstLeads || secondLeads) {
					return Optional.of(firstLeads ? first : second);
				}
				return Optional.<SampleProcess>empty();
			}, Optional::isPresent)
			.get();
	}

	/**
	 * Sample both instances during {@link #OBSERVATION}: at every sample the leader leads
	 * and the other does not.
	 * @return the number of samples
	 */
	private int assertOneLeaderThroughout(SampleProcess leader, SampleProcess other) {
		AtomicInteger samples = new AtomicInteger();
		await().during(OBSERVATION)
			.atMost(OBSERVATION.plusSeconds(5))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(50))
			.until(() -> {
				boolean leaderLeads = leads(leader);
				boolean otherLeads = leads(other);
				assertThat(otherLeads)
					.as("%s leads at sample %d, beside %s", other.name(), samples.get(), leader.name())
					.isFalse();
				assertThat(leaderLeads).as("%s still leads at sample %d", leader.name(), samples.get()).isTrue();
				samples.incrementAndGet();
				return true;
			});
		return samples.get();
	}

	private Duration awaitLeader(SampleProcess survivor, long since, Duration timeout) {
		await(survivor.name() + " leading within " + timeout + " of the kill; see " + survivor.log())
			.atMost(timeout.minusNanos(System.nanoTime() - since))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> leads(survivor));
		return Duration.ofNanos(System.nanoTime() - since);
	}

	private boolean leads(SampleProcess instance) {
		var response = this.client.get(instance.base().resolve("/api/leader"));
		assertThat(response.statusCode()).as("GET /api/leader of %s", instance.name()).isEqualTo(200);
		var leadership = this.client.tree(response);
		assertThat(leadership.get("instance").asString()).isEqualTo(instance.name());
		return leadership.get("leader").asBoolean();
	}

	private SampleProcess start(String instance) throws Exception {
		SampleProcess process = SampleProcess.start(instance, SampleApplication.class, "--spring.profiles.active=redis",
				"--spring.data.redis.host=" + redis.host(), "--spring.data.redis.port=" + redis.port(),
				"--lock.ttl=" + LOCK_TTL.toMillis() + "ms", "--sample.leader.enabled=true",
				"--sample.leader.instance=" + instance, "--management.endpoints.web.exposure.include=health");
		this.processes.add(process);
		return process;
	}

	private static String granted(SampleProcess instance) {
		return "Leadership of '" + LeaderConfiguration.ROLE + "' granted to instance " + instance.name();
	}

	private static String revoked(SampleProcess instance) {
		return "Leadership of '" + LeaderConfiguration.ROLE + "' revoked from instance " + instance.name();
	}

}
