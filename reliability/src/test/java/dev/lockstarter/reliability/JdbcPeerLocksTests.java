package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.lockstarter.test.postgres.PostgresServer;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link JdbcPeerLocks} on a real PostgreSQL: two clients exclude each other,
 * and so do two threads of one client; a short section is held and released; an interrupt
 * inside the section comes out of it and releases the lock; workers starting together
 * create the table once; and each library keeps its own promise once a section outlives
 * the time-to-live (Spring Integration's unlock fails once another client took the
 * expired lock, and only then; ShedLock lets another client in once {@code lockAtMostFor}
 * has passed, which its lock then reports, and the late holder's exit leaves its
 * successor's lock alone).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class JdbcPeerLocksTests {

	/** The time-to-live of a lock that is meant to expire, or to wait a short while. */
	static final Duration TTL = Duration.ofMillis(300);

	/** The time-to-live of a holder that must outlast another client's whole wait. */
	static final Duration LONG_TTL = Duration.ofSeconds(10);

	private static @Nullable PostgresServer postgres;

	@BeforeAll
	static void startServer() {
		postgres = PostgresServer.start();
	}

	@AfterAll
	static void stopServer() {
		if (postgres != null) {
			postgres.close();
		}
	}

	@ParameterizedTest
	@EnumSource
	void twoClientsExcludeEachOther(Peer peer) throws Exception {
		try (WorkerLock first = peer.open(address(), LONG_TTL); WorkerLock second = peer.open(address(), TTL)) {
			PeerLockProbes.assertExclusion(first, second, "excluded-" + peer, TTL, false);
		}
	}

	@ParameterizedTest
	@EnumSource
	void threadsOfOneClientExcludeEachOther(Peer peer) throws Exception {
		String key = "threads-" + peer;
		try (WorkerLock lock = peer.open(address(), LONG_TTL)) {
			CountDownLatch entered = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			AtomicBoolean firstInside = new AtomicBoolean();
			List<Boolean> secondSawFirstInside = new CopyOnWriteArrayList<>();
			FutureTask<Boolean> firstRun = start(() -> lock.runLocked(key, (holding) -> {
				firstInside.set(true);
				entered.countDown();
				try {
					leave.await(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS);
				}
				finally {
					firstInside.set(false);
				}
			}));
			try {
				assertThat(entered.await(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
				FutureTask<Boolean> secondRun = new FutureTask<>(
						() -> lock.runLocked(key, (holding) -> secondSawFirstInside.add(firstInside.get())));
				Thread second = new Thread(secondRun, "second");
				second.start();
				// The second thread waits for the lock (its wait is far longer than this)
				await().atMost(Duration.ofSeconds(PeerLockProbes.LATCH_SECONDS))
					.pollInterval(Duration.ofMillis(1))
					.until(() -> second.getState() == Thread.State.TIMED_WAITING);
				assertThat(secondSawFirstInside).isEmpty();
				leave.countDown();
				assertThat(firstRun.get(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
				assertThat(secondRun.get(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
				assertThat(secondSawFirstInside).containsExactly(false);
			}
			finally {
				leave.countDown();
			}
		}
	}

	@ParameterizedTest
	@EnumSource
	void aShortSectionIsHeldAndTheLockReleased(Peer peer) throws Exception {
		String key = "short-" + peer;
		try (WorkerLock lock = peer.open(address(), Duration.ofSeconds(1));
				WorkerLock other = peer.open(address(), TTL)) {
			PeerLockProbes.Section section = PeerLockProbes.runOnce(lock, key, Duration.ZERO);
			assertThat(section.held()).isTrue();
			assertThat(section.fencingToken()).isZero();
			// Released: the other client gets in without waiting for an expiry
			long started = System.nanoTime();
			assertThat(PeerLockProbes.runOnce(other, key, Duration.ZERO).held()).isTrue();
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
		}
	}

	@ParameterizedTest
	@EnumSource
	void anInterruptInsideTheSectionComesOutAndTheLockIsReleased(Peer peer) throws Exception {
		String key = "interrupted-" + peer;
		try (WorkerLock lock = peer.open(address(), LONG_TTL); WorkerLock other = peer.open(address(), TTL)) {
			InterruptedException interrupted = new InterruptedException("inside");
			assertThatExceptionOfType(InterruptedException.class).isThrownBy(() -> lock.runLocked(key, (holding) -> {
				throw interrupted;
			})).isSameAs(interrupted);
			// Released on the way out: the other client gets in within its short wait
			assertThat(PeerLockProbes.runOnce(other, key, Duration.ZERO).held()).isTrue();
		}
	}

	@ParameterizedTest
	@EnumSource
	void workersStartingTogetherCreateTheTableOnce(Peer peer) throws Exception {
		try (HikariDataSource dataSource = WorkerStores.jdbcDataSource(address(), StoreUnderTest.STORE_TIMEOUT)) {
			new JdbcTemplate(dataSource).execute("DROP TABLE IF EXISTS " + peer.table);
		}
		int workers = 4;
		CountDownLatch go = new CountDownLatch(1);
		ExecutorService executor = Executors.newFixedThreadPool(workers);
		List<Future<WorkerLock>> opening = new ArrayList<>();
		List<WorkerLock> opened = new ArrayList<>();
		try {
			for (int i = 0; i < workers; i++) {
				opening.add(executor.submit(() -> {
					go.await();
					return peer.open(address(), TTL);
				}));
			}
			go.countDown();
			for (Future<WorkerLock> open : opening) {
				opened.add(open.get(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS));
			}
			for (WorkerLock lock : opened) {
				assertThat(PeerLockProbes.runOnce(lock, "created-" + peer, Duration.ZERO).held()).isTrue();
			}
		}
		finally {
			executor.shutdownNow();
			for (WorkerLock lock : opened) {
				lock.close();
			}
		}
	}

	@Test
	void springIntegrationLockTakenOverAfterItsExpiryIsNotHeld() throws Exception {
		try (WorkerLock first = JdbcPeerLocks.springIntegration(address(), TTL);
				WorkerLock second = JdbcPeerLocks.springIntegration(address(), TTL)) {
			PeerLockProbes.assertTakeover(first, second, "integration-taken-over");
		}
	}

	@Test
	void springIntegrationLockOutlivingItsTtlIsHeldWhileNoOtherClientTookIt() throws Exception {
		// The unlock deletes the row that still names this client: nobody else held it
		try (WorkerLock lock = JdbcPeerLocks.springIntegration(address(), TTL)) {
			assertThat(PeerLockProbes.runOnce(lock, "integration-outlived", TTL.multipliedBy(2)).held()).isTrue();
		}
	}

	@Test
	void shedLockLetsAnotherClientInOnceLockAtMostForPassedAndIsThenNotHeld() throws Exception {
		try (WorkerLock first = JdbcPeerLocks.shedLock(address(), TTL);
				WorkerLock second = JdbcPeerLocks.shedLock(address(), TTL)) {
			PeerLockProbes.assertTakeover(first, second, "shedlock-taken-over");
		}
	}

	@Test
	void shedLockOutlivingLockAtMostForIsNotHeld() throws Exception {
		// Its promise ends at lockAtMostFor, taken over or not
		try (WorkerLock lock = JdbcPeerLocks.shedLock(address(), TTL)) {
			assertThat(PeerLockProbes.runOnce(lock, "shedlock-outlived", TTL.multipliedBy(2)).held()).isFalse();
		}
	}

	@Test
	void shedLockHolderThatOutlivedLockAtMostForLeavesItsSuccessorsLockAlone() throws Exception {
		// ShedLock's unlock matches locked_by: each client is a node of its own
		String key = "shedlock-successor";
		try (WorkerLock first = JdbcPeerLocks.shedLock(address(), TTL);
				WorkerLock successor = JdbcPeerLocks.shedLock(address(), LONG_TTL);
				WorkerLock third = JdbcPeerLocks.shedLock(address(), TTL)) {
			CountDownLatch firstEntered = new CountDownLatch(1);
			CountDownLatch successorEntered = new CountDownLatch(1);
			CountDownLatch successorLeaves = new CountDownLatch(1);
			ExecutorService executor = Executors.newFixedThreadPool(2);
			try {
				Future<Boolean> firstRun = executor.submit(() -> first.runLocked(key, (holding) -> {
					firstEntered.countDown();
					successorEntered.await(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS);
				}));
				assertThat(firstEntered.await(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
				Future<Boolean> successorRun = executor.submit(() -> successor.runLocked(key, (holding) -> {
					successorEntered.countDown();
					successorLeaves.await(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS);
				}));
				// The first leaves (and unlocks) once its successor is inside
				assertThat(firstRun.get(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
				AtomicInteger thirdRuns = new AtomicInteger();
				assertThat(third.runLocked(key, (holding) -> thirdRuns.incrementAndGet())).isFalse();
				assertThat(thirdRuns).hasValue(0);
				successorLeaves.countDown();
				assertThat(successorRun.get(PeerLockProbes.LATCH_SECONDS, TimeUnit.SECONDS)).isTrue();
			}
			finally {
				successorEntered.countDown();
				successorLeaves.countDown();
				executor.shutdownNow();
			}
		}
	}

	private static <T> FutureTask<T> start(Callable<T> callable) {
		FutureTask<T> task = new FutureTask<>(callable);
		new Thread(task, "first").start();
		return task;
	}

	/**
	 * The address a worker is given, as the harness builds it.
	 */
	private static String address() {
		PostgresServer server = postgres;
		assertThat(server).isNotNull();
		return server.jdbcUrl() + "?user=" + server.username();
	}

	/**
	 * A lock under test, and the table it creates.
	 */
	enum Peer {

		SPRING_INTEGRATION(JdbcPeerLocks::springIntegration, "INT_LOCK"),

		SHEDLOCK(JdbcPeerLocks::shedLock, "shedlock");

		private final BiFunction<String, Duration, WorkerLock> factory;

		final String table;

		Peer(BiFunction<String, Duration, WorkerLock> factory, String table) {
			this.factory = factory;
			this.table = table;
		}

		WorkerLock open(String address, Duration ttl) {
			return this.factory.apply(address, ttl);
		}

	}

}
