package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisServer;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample app with its locks in Redis ({@code redis} profile) and with the timeouts of
 * a new application: {@code spring.data.redis.timeout} at Lettuce's default of 60
 * seconds, {@code lock.redis.timeout} not set. When Redis is killed or stops answering, a
 * registration gets the 503 problem within about 2 seconds without running, the rest of
 * the app keeps answering, and registrations work again soon after Redis is back, without
 * a restart of the app. The users live in memory here ({@code sample.store}), so that the
 * app has an endpoint that does not need Redis.
 */
class RedisOutageTests {

	private static final Duration TIME_TO_503 = Duration.ofMillis(2500);

	@RegisterExtension
	final RedisServerExtension redis = new RedisServerExtension();

	private final SampleClient client = new SampleClient();

	private ConfigurableApplicationContext app;

	private URI base;

	@BeforeEach
	void startApp() {
		this.app = new SpringApplicationBuilder(SampleApplication.class).profiles("redis")
			.run("--server.port=0", "--spring.data.redis.host=" + this.redis.host(),
					"--spring.data.redis.port=" + this.redis.port(), "--sample.store=memory",
					"--sample.points-service.latency=10ms",
					// Lettuce's own default, as in an application that sets no timeout
					// (the
					// profile sets 2s for the sample's own data)
					"--spring.data.redis.timeout=60s");
		this.base = SampleClient.base(this.app);
		// Initialized servlets, an open Redis connection
		assertThat(this.client.register(this.base, SampleClient.SAFE, uniqueName()).statusCode()).isEqualTo(201);
	}

	@AfterEach
	void stopApp() {
		this.redis.server().resume();
		if (this.app != null) {
			this.app.close();
		}
	}

	@Test
	void registrationGets503WithinTheLockTimeoutWhenRedisIsKilledAndWorksAgainOnceItRestarts() throws Exception {
		kill(this.redis.server());
		assertRegistrationFailsClosed("Redis killed");
		this.redis.server().restart();
		Duration recovery = timeUntilRegistered();
		report("registration succeeds again after the restart", recovery);
		assertThat(recovery).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void registrationGets503WithinTheLockTimeoutWhenRedisIsPausedAndWorksAgainOnceItResumes() throws Exception {
		this.redis.server().pause();
		try {
			assertRegistrationFailsClosed("Redis paused");
		}
		finally {
			this.redis.server().resume();
		}
		Duration recovery = timeUntilRegistered();
		report("registration succeeds again after SIGCONT", recovery);
		assertThat(recovery).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void registrationWithItsUsersInRedisGets503NotA500WhenRedisIsKilled() throws Exception {
		// The registration checks the name against Redis before it locks: that check
		// fails
		// first, and answers like the lock does
		ConfigurableApplicationContext withUsersInRedis = new SpringApplicationBuilder(SampleApplication.class)
			.profiles("redis")
			.run("--server.port=0", "--spring.data.redis.host=" + this.redis.host(),
					"--spring.data.redis.port=" + this.redis.port(), "--sample.points-service.latency=10ms");
		try {
			URI usersInRedis = SampleClient.base(withUsersInRedis);
			assertThat(this.client.register(usersInRedis, SampleClient.SAFE, uniqueName()).statusCode()).isEqualTo(201);
			kill(this.redis.server());
			for (String path : List.of(SampleClient.SAFE, SampleClient.UNSAFE)) {
				long started = System.nanoTime();
				HttpResponse<String> response = this.client.register(usersInRedis, path, uniqueName());
				Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
				report(path + " to 503 with the users in Redis, Redis killed", elapsed);
				assertThat(response.statusCode()).as(path).isEqualTo(503);
				assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
				assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
				assertThat(this.client.problem(response)).containsEntry("status", 503)
					.containsEntry("type", "urn:lockstarter:sample:problem:data-store-unavailable");
				assertThat(elapsed).isLessThan(TIME_TO_503);
			}
		}
		finally {
			withUsersInRedis.close();
		}
	}

	private void assertRegistrationFailsClosed(String outage) {
		String userName = uniqueName();
		long started = System.nanoTime();
		HttpResponse<String> response = this.client.register(this.base, SampleClient.SAFE, userName);
		Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
		report("POST /api/users to 503, " + outage, elapsed);
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(this.client.problem(response)).containsEntry("status", 503)
			.containsEntry("type", "urn:lockstarter:problem:lock-store-unavailable");
		assertThat(elapsed).isLessThan(TIME_TO_503);
		// A request that needs no lock still answers, and shows that the registration
		// did not run
		long asked = System.nanoTime();
		assertThat(this.client.findByName(this.base, userName)).isEmpty();
		Duration answered = Duration.ofNanos(System.nanoTime() - asked);
		report("GET /api/users?userName=, " + outage, answered);
		// A request that waited for Redis would take the lock timeout of 2 s, or more
		assertThat(answered).as("liveness bound, not a speed claim: answered without waiting for Redis")
			.isLessThan(Duration.ofMillis(1500));
	}

	private Duration timeUntilRegistered() {
		long started = System.nanoTime();
		await("a registration within 20 s of Redis coming back").atMost(Duration.ofSeconds(20))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> this.client.register(this.base, SampleClient.SAFE, uniqueName()).statusCode() == 201);
		return Duration.ofNanos(System.nanoTime() - started);
	}

	/**
	 * Kill the server with {@code SIGKILL}, as {@code kill -9} does.
	 */
	private static void kill(RedisServer redis) throws Exception {
		String info = redis.command("INFO", "server");
		assertThat(info).contains("process_id:");
		String pid = info.substring(info.indexOf("process_id:") + "process_id:".length());
		ProcessHandle process = ProcessHandle.of(Long.parseLong(pid.substring(0, pid.indexOf('\r')).strip()))
			.orElseThrow();
		process.destroyForcibly();
		process.onExit().get(5, TimeUnit.SECONDS);
	}

	private static void report(String what, Duration elapsed) {
		System.out.println("[timing] " + what + ": " + elapsed.toMillis() + " ms");
	}

	private static String uniqueName() {
		return "outage-" + UUID.randomUUID().toString().substring(0, 8);
	}

}
