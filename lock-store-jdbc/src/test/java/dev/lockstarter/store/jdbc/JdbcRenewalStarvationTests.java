package dev.lockstarter.store.jdbc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.store.AcquireReply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Renewals of a {@link JdbcLockStore} ask for their connections on threads of their own,
 * so that acquisitions that hold every one of the store's
 * {@value JdbcConnectionSource#THREADS} connection threads, while the data source has no
 * connection to give, cannot keep a renewal queued behind them until its lease ends. The
 * data source is a real pool on an in-memory H2 database behind a
 * {@link GatedDataSource}, which hands connections out in the order they were asked for.
 */
class JdbcRenewalStarvationTests {

	private static final Duration TTL = Duration.ofSeconds(60);

	private HikariDataSource database;

	private GatedDataSource dataSource;

	private JdbcLockStore store;

	private ExecutorService callers;

	@BeforeEach
	void createStore() {
		this.database = TestDataSources.h2();
		this.dataSource = new GatedDataSource(this.database);
		// Long enough that no caller gives up during the test
		this.store = new JdbcLockStore(this.dataSource, JdbcLockStore.DEFAULT_TABLE_NAME, Duration.ofSeconds(30));
		this.store.createSchema();
		this.callers = Executors.newCachedThreadPool();
	}

	@AfterEach
	void closePool() {
		this.dataSource.open();
		this.callers.shutdownNow();
		this.store.close();
		this.database.close();
	}

	@Test
	void aRenewalAsksForItsConnectionBesideAcquisitionsThatHoldEveryConnectionThread() throws Exception {
		String held = "renewal:" + UUID.randomUUID();
		String token = token();
		assertThat(this.store.tryAcquire(held, token, TTL).isAcquired()).isTrue();
		this.dataSource.close();
		int threads = JdbcConnectionSource.THREADS;
		List<Future<AcquireReply>> acquisitions = new ArrayList<>();
		for (int i = 0; i < 2 * threads; i++) {
			acquisitions
				.add(this.callers.submit(() -> this.store.tryAcquire("renewal:" + UUID.randomUUID(), token(), TTL)));
		}
		await("acquisitions waiting for the data source on every connection thread").atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(this.dataSource::waiting, (waiting) -> waiting == threads);
		Future<Boolean> renewal = this.callers.submit(() -> this.store.extend(held, token, TTL));
		await("the renewal's request for a connection, beside the acquisitions' on every connection thread")
			.atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(20))
			.until(this.dataSource::waiting, (waiting) -> waiting == threads + 1);
		// One connection for each caller that waits: the renewal's comes in its turn
		this.dataSource.hand(threads + 1);
		assertThat(renewal).as("renewal").succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(acquisitions).filteredOn((acquisition) -> !acquisition.isDone())
			.as("acquisitions still queued for a connection thread when the renewal was done")
			.hasSizeGreaterThanOrEqualTo(threads);
		this.dataSource.open();
		for (Future<AcquireReply> acquisition : acquisitions) {
			assertThat(acquisition).succeedsWithin(Duration.ofSeconds(10))
				.satisfies((reply) -> assertThat(reply.isAcquired()).isTrue());
		}
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

}
