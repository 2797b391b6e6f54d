package dev.lockstarter.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import dev.lockstarter.test.etcd.EtcdServer;
import dev.lockstarter.test.mariadb.MariaDbServer;
import dev.lockstarter.test.redis.RedisServer;
import dev.lockstarter.test.zookeeper.ZooKeeperServer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Three instances of an application on one store, each in a JVM of its own: A on the true
 * clock, B with its wall clock {@value #SKEW_MILLIS} ms ahead, C {@value #SKEW_MILLIS} ms
 * behind (libfaketime, the monotonic clock untouched, as NTP stepping a clock would leave
 * it), each with {@link dev.lockstarter.core.LockTemplate}, a time-to-live of 5 s and
 * renewal on ({@link SkewedClockInstance}). On every store:
 * <ul>
 * <li>A holds a key for {@value #HOLD_MILLIS} ms (longer than the time-to-live, so it
 * renews) while B tries it again and again: B never gets it while A holds it;</li>
 * <li>C holds a key as long while A tries it: A never gets it;</li>
 * <li>a free key is taken by each of the three in turn.</li>
 * </ul>
 * "While A holds it" is judged on the machine's monotonic clock
 * ({@link System#nanoTime()}, the same in every process), never on a wall clock. The same
 * test on a store that judges expiry by the instances' wall clocks
 * ({@link BrokenLockStore.Flaw#WALL_CLOCK_EXPIRY}) must see the contender get in, both
 * ways: the test can fail. Each store's servers and instances are started once for its
 * tests.
 */
class SkewedClockInstancesTests {

	static final Duration TTL = Duration.ofSeconds(5);

	static final long SKEW_MILLIS = 8000;

	static final long HOLD_MILLIS = 6000;

	private static final Path LOGS = Path.of("target", "skewed-clocks");

	@Nested
	class OnRedis extends StoreCase {

		@Override
		Servers start() {
			return redisServers();
		}

	}

	@Nested
	class OnMemcached extends StoreCase {

		@Override
		Servers start() {
			return harnessServers(Backend.MEMCACHED);
		}

	}

	@Nested
	class OnDynamoDb extends StoreCase {

		@Override
		Servers start() {
			return harnessServers(Backend.DYNAMODB);
		}

	}

	@Nested
	class OnPostgres extends StoreCase {

		@Override
		Servers start() {
			return harnessServers(Backend.JDBC);
		}

	}

	@Nested
	class OnMariaDb extends StoreCase {

		@Override
		Servers start() {
			return mariaDbServers();
		}

	}

	@Nested
	class OnEtcd extends StoreCase {

		@Override
		Servers start() {
			EtcdServer etcd = EtcdServer.start();
			return new Servers(Backend.ETCD.name(), etcd.endpoint(), etcd::close);
		}

	}

	@Nested
	class OnZooKeeper extends StoreCase {

		@Override
		Servers start() {
			ZooKeeperServer zooKeeper = ZooKeeperServer.start();
			return new Servers(Backend.ZOOKEEPER.name(), zooKeeper.connectString(), zooKeeper::close);
		}

	}

	/**
	 * The negative control: a Redis store that judges expiry by the instances' wall
	 * clocks, as the etcd, ZooKeeper, Memcached and DynamoDB stores once did. The
	 * contender gets in both ways.
	 */
	@Nested
	class OnAStoreThatTrustsWallClocks extends StoreCase {

		@Override
		Servers start() {
			RedisServer redis = RedisServer.start();
			return new Servers(BrokenLockStore.Flaw.WALL_CLOCK_EXPIRY.name(), redis.host() + ":" + redis.port(),
					redis::close);
		}

		@Override
		boolean trustsWallClocks() {
			return true;
		}

	}

	static Servers redisServers() {
		RedisServer redis = RedisServer.start();
		return new Servers(Backend.REDIS.name(), redis.host() + ":" + redis.port(), redis::close);
	}

	/** A MariaDB server with the JDBC store's schema, as the harness's JDBC backend. */
	static Servers mariaDbServers() {
		MariaDbServer mariadb = MariaDbServer.start();
		String address = mariadb.jdbcUrl() + "?user=" + mariadb.username() + "&password=" + mariadb.password();
		try (HikariDataSource dataSource = WorkerStores.jdbcDataSource(address, StoreUnderTest.STORE_TIMEOUT)) {
			WorkerStores.jdbc(dataSource).createSchema();
		}
		catch (RuntimeException ex) {
			mariadb.close();
			throw ex;
		}
		return new Servers(Backend.JDBC.name(), address, mariadb::close);
	}

	static Servers harnessServers(Backend backend) {
		StoreUnderTest servers = StoreUnderTest.start(backend, false, List.of());
		return new Servers(backend.name(), servers.address(), servers::close);
	}

	/**
	 * A store's servers: the store argument of {@link SkewedClockInstance}, its address,
	 * and how to stop them.
	 */
	record Servers(String store, String address, AutoCloseable close) {
	}

	@TestInstance(TestInstance.Lifecycle.PER_CLASS)
	@Timeout(value = 2, unit = TimeUnit.MINUTES)
	abstract static class StoreCase {

		private @Nullable Servers servers;

		/** A, B and C, once all three have started; whichever did, if one did not. */
		private final List<Instance> instances = new CopyOnWriteArrayList<>();

		abstract Servers start();

		boolean trustsWallClocks() {
			return false;
		}

		@BeforeAll
		void startServersAndInstances() throws Exception {
			Files.createDirectories(LOGS);
			Servers servers = start();
			this.servers = servers;
			String name = getClass().getSimpleName();
			List<String> ids = List.of("a", "b", "c");
			long[] offsets = { 0, SKEW_MILLIS, -SKEW_MILLIS };
			AtomicInteger next = new AtomicInteger();
			Threads.startAll(ids.size(), () -> {
				int i = next.getAndIncrement();
				return Instance.start(name, ids.get(i), offsets[i], servers);
			}, this.instances, "instance-starter");
			this.instances.sort(Comparator.comparing((instance) -> instance.id));
			for (Instance instance : this.instances) {
				// The wall clock is skewed as asked, the monotonic clock is the machine's
				long[] clock = instance.ask("clock", "CLOCK", 10).stream().mapToLong(Long::parseLong).toArray();
				assertThat(clock[0] - System.currentTimeMillis()).as("%s's wall clock offset", instance)
					.isCloseTo(instance.offsetMillis, within(1000L));
				assertThat(clock[1] - System.nanoTime()).as("%s's monotonic clock", instance)
					.isCloseTo(0L, within(TimeUnit.SECONDS.toNanos(1)));
			}
		}

		@AfterAll
		void stop() throws Exception {
			for (Instance instance : this.instances) {
				instance.close();
			}
			if (this.servers != null) {
				this.servers.close().close();
			}
		}

		private Instance a() {
			return this.instances.get(0);
		}

		private Instance b() {
			return this.instances.get(1);
		}

		private Instance c() {
			return this.instances.get(2);
		}

		@Test
		void aContenderWhoseClockIsAheadNeverGetsInWhileTheHolderWorks() {
			contend(a(), b(), "ahead");
		}

		@Test
		void aContenderNeverGetsInWhileAHolderWhoseClockIsBehindWorks() {
			contend(c(), a(), "behind");
		}

		@Test
		void aFreeKeyIsTakenByEveryInstance() {
			for (Instance instance : this.instances) {
				List<String> took = instance.ask("take free", "TOOK", TTL.toSeconds() * 3);
				System.err.printf("[%s] %s took the free key: %s after %s ms%n", getClass().getSimpleName(), instance,
						took.get(0), took.get(1));
				assertThat(took.get(0)).as("%s took the free key", instance).isEqualTo("true");
				assertThat(Long.parseLong(took.get(1))).as("%s's wait for the free key, ms", instance)
					.isLessThan(TTL.toMillis());
			}
		}

		/**
		 * The holder holds the key for {@value #HOLD_MILLIS} ms while the contender tries
		 * it every 100 ms, starting once the holder has it and ending a second before the
		 * holder lets it go; a grant to the contender between the holder's acquisition
		 * and the end of its hold, on the machine's monotonic clock, is an overlap.
		 */
		private void contend(Instance holder, Instance contender, String key) {
			holder.send("hold " + key + " " + HOLD_MILLIS);
			long heldAt = Long.parseLong(holder.await("HELD", TTL.toSeconds() * 3).get(0));
			List<String> tried = contender.ask("try " + key + " " + (HOLD_MILLIS - 1000), "TRIED", 60);
			List<String> released = holder.await("RELEASED", 60);
			long releasedAt = Long.parseLong(released.get(0));
			long[] granted = tried.get(1).equals("-") ? new long[0]
					: Arrays.stream(tried.get(1).split(",")).mapToLong(Long::parseLong).toArray();
			long overlaps = Arrays.stream(granted).filter((at) -> at >= heldAt && at <= releasedAt).count();
			int attempts = Integer.parseInt(tried.get(0));
			System.err.printf("[%s] %s held '%s' for %d ms; %s tried %d times, got it %d times while it was held%n",
					getClass().getSimpleName(), holder, key, (releasedAt - heldAt) / 1_000_000, contender, attempts,
					overlaps);
			assertThat(attempts).as("%s's attempts", contender).isGreaterThanOrEqualTo(10);
			if (trustsWallClocks()) {
				assertThat(overlaps).as("%s got in while %s held the lock (wall clocks trusted)", contender, holder)
					.isPositive();
			}
			else {
				assertThat(overlaps).as("%s got in while %s held the lock", contender, holder).isZero();
				assertThat(released.get(1)).as("%s's lease held the lock to the end", holder).isEqualTo("true");
			}
		}

	}

	/**
	 * A running {@link SkewedClockInstance}.
	 */
	static final class Instance implements AutoCloseable {

		private final String id;

		private final long offsetMillis;

		private final Process process;

		private final Writer commands;

		private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

		private Instance(String id, long offsetMillis, Process process) {
			this.id = id;
			this.offsetMillis = offsetMillis;
			this.process = process;
			this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
			Threads.daemon(() -> {
				try (BufferedReader reader = new BufferedReader(
						new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
					for (String line = reader.readLine(); line != null; line = reader.readLine()) {
						this.answers.add(line);
					}
				}
				catch (IOException ex) {
					// The instance is gone
				}
			}, "instance-" + id + "-reader");
		}

		static Instance start(String testName, String id, long offsetMillis, Servers servers) {
			Path clockFile = null;
			if (offsetMillis != 0) {
				clockFile = LOGS.resolve(testName + "-" + id + ".faketime");
				ClockNemesis.write(clockFile, offsetMillis);
			}
			ProcessBuilder builder = ChildJvm.builder(SkewedClockInstance.class,
					List.of(servers.store(), servers.address()), clockFile);
			builder.redirectError(LOGS.resolve(testName + "-" + id + ".log").toFile());
			Process process;
			try {
				process = builder.start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			Instance instance = new Instance(id, offsetMillis, process);
			instance.awaitLine(Worker.READY, 60);
			return instance;
		}

		void send(String command) {
			try {
				this.commands.write(command + "\n");
				this.commands.flush();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Could not send '" + command + "' to " + this, ex);
			}
		}

		List<String> ask(String command, String answer, long timeoutSeconds) {
			send(command);
			return await(answer, timeoutSeconds);
		}

		/** Wait for an answer and return its fields after the first. */
		List<String> await(String answer, long timeoutSeconds) {
			String line = awaitLine(SkewedClockInstance.ANSWER + answer + " ", timeoutSeconds);
			List<String> fields = new ArrayList<>(List.of(line.split(" ")));
			return fields.subList(2, fields.size());
		}

		private String awaitLine(String prefix, long timeoutSeconds) {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
			try {
				while (System.nanoTime() - deadline < 0) {
					String line = this.answers.poll(100, TimeUnit.MILLISECONDS);
					if (line != null && (line.startsWith(SkewedClockInstance.ANSWER + "ERROR")
							|| line.startsWith(SkewedClockInstance.ANSWER + "NOT_ACQUIRED"))) {
						throw new IllegalStateException(this + ": " + line);
					}
					if (line != null && line.startsWith(prefix)) {
						return line;
					}
					if (line == null && !this.process.isAlive()) {
						throw new IllegalStateException(this + " exited with " + this.process.exitValue());
					}
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			throw new IllegalStateException(
					this + " did not answer '" + prefix.strip() + "' within " + timeoutSeconds + " s");
		}

		@Override
		public void close() throws InterruptedException {
			try {
				send("quit");
			}
			catch (RuntimeException ex) {
				// Gone already
			}
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}

		@Override
		public String toString() {
			return this.id.toUpperCase(Locale.ROOT) + " (wall clock "
					+ ((this.offsetMillis == 0) ? "true" : ClockNemesis.format(this.offsetMillis)) + ")";
		}

	}

}
