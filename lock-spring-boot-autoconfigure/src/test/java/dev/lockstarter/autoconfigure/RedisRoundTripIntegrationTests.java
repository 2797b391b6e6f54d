package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockOperations;
import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counts, with Redis's own {@code INFO commandstats}, the commands the client sends for
 * an acquire + release cycle and for a rejected acquire. Every top-level command is one
 * round trip; the commands a script runs inside Redis are counted separately.
 */
class RedisRoundTripIntegrationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final int CYCLES = 100;

	/**
	 * The commands the lock scripts run inside Redis and the client never sends in these
	 * cycles ({@code SET} is both: counted apart).
	 */
	private static final String[] SCRIPT_COMMANDS = { "get", "del", "pttl", "incr", "time", "pexpire", "publish",
			"append" };

	@Test
	void acquireAndReleaseCostOneRoundTripEachAndAConflictTwo() {
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "lock.store=redis", "spring.data.redis.port=" + redis.port(),
					"spring.data.redis.host=" + redis.host())
			.run()) {
			LockOperations locks = context.getBean(LockOperations.class);
			// Load the scripts: a conflict runs the acquire script,
			// a release runs the release script
			Lease warmUp = locks.acquire("warm-up", Duration.ofSeconds(5));
			assertThat(locks.tryAcquire("warm-up", Duration.ofSeconds(5)).isAcquired()).isFalse();
			warmUp.release();
			redis.server().command("CONFIG", "RESETSTAT");
			for (int i = 0; i < CYCLES; i++) {
				try (Lease lease = locks.acquire("user:" + i, Duration.ofSeconds(5))) {
					assertThat(lease.key()).isEqualTo("user:" + i);
				}
			}
			String cycles = redis.server().command("INFO", "commandstats");
			System.out.println("acquire + release x " + CYCLES + ":\n" + cycles);
			// Acquire is a plain SET NX PX, release one script; the release script
			// runs no SET, so every SET counted was sent
			assertThat(calls(cycles, "set")).isEqualTo(CYCLES);
			assertThat(calls(cycles, "evalsha")).isEqualTo(CYCLES);
			assertThat(topLevelCalls(cycles)).isEqualTo(2 * CYCLES);

			Lease holder = locks.acquire("contended", Duration.ofSeconds(5));
			redis.server().command("CONFIG", "RESETSTAT");
			for (int i = 0; i < CYCLES; i++) {
				assertThat(locks.tryAcquire("contended", Duration.ofSeconds(5)).isAcquired()).isFalse();
			}
			String conflicts = redis.server().command("INFO", "commandstats");
			System.out.println("rejected acquire x " + CYCLES + ":\n" + conflicts);
			// A conflict is two round trips: SET NX PX, then the script that reads
			// the holder's PTTL and runs SET NX PX once more (the lock may be free)
			assertThat(calls(conflicts, "evalsha")).isEqualTo(CYCLES);
			assertThat(calls(conflicts, "set")).isEqualTo(2 * CYCLES);
			assertThat(topLevelCalls(conflicts) - CYCLES).as("round trips").isEqualTo(2 * CYCLES);
			holder.release();
		}
	}

	/**
	 * All calls except those of the commands that only run inside the lock scripts, and
	 * the test's own {@code CONFIG RESETSTAT}.
	 */
	private static long topLevelCalls(String commandStats) {
		long all = 0;
		Matcher matcher = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)").matcher(commandStats);
		while (matcher.find()) {
			all += Long.parseLong(matcher.group(2));
		}
		for (String command : SCRIPT_COMMANDS) {
			all -= calls(commandStats, command);
		}
		return all - calls(commandStats, "config|resetstat");
	}

	private static long calls(String commandStats, String command) {
		Matcher matcher = Pattern.compile("cmdstat_" + Pattern.quote(command) + ":calls=(\\d+)").matcher(commandStats);
		return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

}
