package dev.lockstarter.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import dev.lockstarter.core.LockAttempt;
import dev.lockstarter.core.LockKind;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.reliability.SkewedClockInstancesTests.Servers;
import dev.lockstarter.test.fault.BlockedTime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A writer waiting for a read/write lock is killed ({@code SIGKILL}) while readers hold
 * it, on every store with read/write locks whose server outlives a JVM: Redis, PostgreSQL
 * and MariaDB. The writer runs in a JVM of its own ({@link WaitingWriterInstance}), with
 * a time-to-live of {@link #TTL} and a wait of {@link #WAIT}; the test holds a read lock
 * of the key from its own JVM, on its own connection to the store.
 * <ul>
 * <li>Once the writer waits, new readers are refused, and stay refused for three of its
 * time-to-lives: each of its tries records its wait anew.</li>
 * <li>Once it is killed, a new reader gets in within its time-to-live and a second, not
 * after the ten minutes the writer would have waited.</li>
 * </ul>
 */
class KilledWaitingWriterTests {

	static final String PREFIX = "killed-writer:";

	/**
	 * The writer's time-to-live: each of its tries, at most a second and a half apart,
	 * records its wait for that long, so a writer's JVM that a busy machine stalls for
	 * two seconds keeps its wait recorded. It is also how long the writer's and the
	 * test's store calls wait for an answer.
	 */
	static final Duration TTL = Duration.ofSeconds(4);

	static final Duration WAIT = Duration.ofMinutes(10);

	private static final Path LOGS = Path.of("target", "killed-writer");

	@Nested
	class OnRedis extends StoreCase {

		@Override
		Servers start() {
			return SkewedClockInstancesTests.redisServers();
		}

	}

	@Nested
	class OnPostgres extends StoreCase {

		@Override
		Servers start() {
			return SkewedClockInstancesTests.harnessServers(Backend.JDBC);
		}

	}

	@Nested
	class OnMariaDb extends StoreCase {

		@Override
		Servers start() {
			return SkewedClockInstancesTests.mariaDbServers();
		}

	}

	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	abstract static class StoreCase {

		private @Nullable Servers servers;

		private WorkerStores.@Nullable Opened opened;

		abstract Servers start();

		@BeforeAll
		void startServers() throws IOException {
			Files.createDirectories(LOGS);
			Servers servers = start();
			this.servers = servers;
			this.opened = WorkerStores.open(Backend.valueOf(servers.store()), servers.address(), TTL);
		}

		@AfterAll
		void stop() throws Exception {
			if (this.opened != null) {
				this.opened.resources().close();
			}
			if (this.servers != null) {
				this.servers.close().close();
			}
		}

		@Test
		void aKilledWaitingWriterHoldsNewReadersBackForAtMostItsTimeToLive() throws Exception {
			Servers servers = this.servers;
			WorkerStores.Opened opened = this.opened;
			assertThat(servers).isNotNull();
			assertThat(opened).isNotNull();
			LockTemplate locks = new LockTemplate(opened.store(), PREFIX);
			String key = "report";
			LockAttempt reader = locks.tryAcquire(key,
					LockOptions.ttl(Duration.ofMinutes(1)).withKind(LockKind.READ).withRenewal(false));
			assertThat(reader.isAcquired()).as("the first reader").isTrue();
			Process writer = startWriter(servers, key);
			try {
				await("the writer's wait held new readers back").atMost(Duration.ofSeconds(30))
					.until(() -> !tryRead(locks, key));
				await("no new reader while the writer waits").during(TTL.multipliedBy(3))
					.atMost(TTL.multipliedBy(6))
					.pollInterval(Duration.ofMillis(200))
					.until(() -> !tryRead(locks, key));
			}
			finally {
				writer.destroyForcibly();
				writer.waitFor(30, TimeUnit.SECONDS);
			}
			// Up to the start of the last refused read, which a late answer cannot
			// lengthen
			Duration heldBack = BlockedTime.since(System.nanoTime(), () -> tryRead(locks, key), Duration.ofSeconds(30));
			System.err.printf("[%s] the last new reader refused was sent %d ms after the waiting writer was killed%n",
					getClass().getSimpleName(), heldBack.toMillis());
			assertThat(heldBack).as("time new readers were held back after the writer was killed")
				.isLessThanOrEqualTo(TTL.plusSeconds(1));
			reader.lease().close();
			locks.destroy();
		}

		private Process startWriter(Servers servers, String key) throws IOException {
			ProcessBuilder builder = ChildJvm.builder(WaitingWriterInstance.class, List.of(servers.store(),
					servers.address(), key, Long.toString(TTL.toMillis()), Long.toString(WAIT.toMillis())), null);
			builder.redirectError(LOGS.resolve(getClass().getSimpleName() + ".log").toFile());
			Process process = builder.start();
			try (BufferedReader out = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				String line = out.readLine();
				if (!Worker.READY.equals(line)) {
					process.destroyForcibly();
					throw new IllegalStateException("The writer did not start: " + line);
				}
			}
			catch (UncheckedIOException ex) {
				process.destroyForcibly();
				throw ex;
			}
			return process;
		}

		private static boolean tryRead(LockTemplate locks, String key) {
			LockAttempt attempt = locks.tryAcquire(key, LockOptions.ttl(TTL).withKind(LockKind.READ));
			if (attempt.isAcquired()) {
				attempt.lease().close();
			}
			return attempt.isAcquired();
		}

	}

}
