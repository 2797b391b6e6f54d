package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;

import org.springframework.dao.CannotAcquireLockException;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The peer locks on PostgreSQL, each on a pool of its own
 * ({@link WorkerStores#jdbcDataSource}, whose driver also gives up on a reply after
 * {@link StoreUnderTest#STORE_TIMEOUT}), each creating its table if absent.
 * <h2>Spring Integration's {@code JdbcLockRegistry}</h2> A {@link JdbcLockRegistry} over
 * a {@link DefaultLockRepository}, set up outside an application context as the context
 * would: a {@link DataSourceTransactionManager} of its own (the reference guide allows
 * one since 6.0 instead of the context's primary one), then the repository's
 * {@code afterPropertiesSet}, {@code afterSingletonsInstantiated} and {@code start}
 * (which checks the table). Since 7.0 the time-to-live belongs to the registry (a
 * constructor argument), not to the repository. The table is {@code INT_LOCK}, created
 * from the statement of the {@code schema-postgresql.sql} script the library ships. A
 * lock is taken with {@code obtain("lock:" + key).tryLock(2 × ttl)}: the registry tries
 * the row every {@code idleBetweenTries}, left at its default of 100 ms (the guide warns
 * that a release by another registry may take that long to be noticed). The lock is not
 * renewed: the guide leaves renewal to the locked process, which calls {@code renewLock}
 * when it may outlive the time-to-live; the renewal scheduler hook
 * ({@code setRenewalTaskScheduler}) does nothing in the JDBC registry.
 * <p>
 * {@code isHeld()} is the lock's {@code unlock()} (which releases it): the guide says
 * that, since 6.4, unlocking throws {@code ConcurrentModificationException} when the
 * store no longer records this registry as the owner because the lock expired. It deletes
 * the row only if the row still names this registry's client id, whatever its expiry: it
 * fails once another registry took the expired lock, not merely because the time-to-live
 * passed (nobody else then held it). Any other failure of the unlock, such as an
 * unreachable store, also answers {@code false}: the lock could not confirm. Asked on the
 * thread that runs the section, as the registry's locks belong to a thread. The
 * repository judges expiry by the client's clock ({@code DefaultLockRepository}'s
 * {@code currentTime()}, {@code LocalDateTime.now(ZoneOffset.UTC)} of the JVM): the
 * acquiring client writes {@code EXPIRED_AFTER} as its own time plus the time-to-live,
 * and takes over a row whose {@code EXPIRED_AFTER} is before its own time.
 * <h2>ShedLock's {@code JdbcTemplateLockProvider}</h2> A {@link JdbcTemplateLockProvider}
 * built with {@code Configuration.builder()} on a {@link JdbcTemplate}, with
 * {@code usingDbTime()}, which its README strongly recommends: the times of the lock come
 * from the database server's clock rather than from application servers whose clocks may
 * differ, in SQL of the database that avoids insert conflicts. Its table,
 * {@code shedlock}, is the one the README gives for PostgreSQL. ShedLock tells nodes
 * apart by {@code locked_by} (the host name by default), which its unlock matches, and a
 * node runs a scheduled task on one thread at a time: each thread of a worker is a node
 * of its own here, with a value of its own (the workers share one host, and two threads
 * of one node that share a lock's name would release each other's lock). It runs through
 * {@link ShedLockWorkerLock}; the lock is not extended: the README keeps its
 * {@code KeepAliveLockProvider} for special cases, with a {@code lockAtMostFor} of at
 * least 30 s.
 */
final class JdbcPeerLocks {

	private static final String LOCK_PREFIX = "lock:";

	private static final String INTEGRATION_SCHEMA = "org/springframework/integration/jdbc/schema-postgresql.sql";

	private static final String INTEGRATION_TABLE = DefaultLockRepository.DEFAULT_TABLE_PREFIX + "LOCK";

	private static final String SHEDLOCK_TABLE = "shedlock";

	private static final String SHEDLOCK_DDL = """
			CREATE TABLE IF NOT EXISTS shedlock(name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,
				locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))""";

	private JdbcPeerLocks() {
	}

	/**
	 * Spring Integration's {@link JdbcLockRegistry} on PostgreSQL.
	 * @param jdbcUrl the JDBC URL, with the user
	 * @param ttl the time-to-live of a lock
	 * @return the lock, on a pool of its own
	 */
	static WorkerLock springIntegration(String jdbcUrl, Duration ttl) {
		HikariDataSource dataSource = dataSource(jdbcUrl);
		try {
			createTable(dataSource, INTEGRATION_TABLE, shippedLockTable());
			DefaultLockRepository repository = new DefaultLockRepository(dataSource);
			repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
			repository.afterPropertiesSet();
			repository.afterSingletonsInstantiated();
			repository.start();
			JdbcLockRegistry registry = new JdbcLockRegistry(repository, ttl);
			long waitMillis = ttl.multipliedBy(2).toMillis();
			return WorkerLock.acquiring((key) -> {
				Lock lock = registry.obtain(LOCK_PREFIX + key);
				return tryLock(lock, waitMillis) ? new UnlockChecked(lock) : null;
			}, () -> {
				try {
					repository.close();
				}
				finally {
					dataSource.close();
				}
			});
		}
		catch (RuntimeException ex) {
			dataSource.close();
			throw ex;
		}
	}

	/**
	 * ShedLock's {@link JdbcTemplateLockProvider} on PostgreSQL.
	 * @param jdbcUrl the JDBC URL, with the user
	 * @param ttl the {@code lockAtMostFor} of a lock
	 * @return the lock, on a pool of its own
	 */
	static WorkerLock shedLock(String jdbcUrl, Duration ttl) {
		HikariDataSource dataSource = dataSource(jdbcUrl);
		try {
			createTable(dataSource, SHEDLOCK_TABLE, SHEDLOCK_DDL);
			JdbcTemplate jdbc = new JdbcTemplate(dataSource);
			// A node of its own per thread: the unit of ownership ShedLock knows
			ThreadLocal<LockingTaskExecutor> executors = ThreadLocal.withInitial(() -> new DefaultLockingTaskExecutor(
					new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
						.withJdbcTemplate(jdbc)
						.usingDbTime()
						.withLockedByValue(UUID.randomUUID().toString())
						.build())));
			return new ShedLockWorkerLock(executors::get, ttl, dataSource);
		}
		catch (RuntimeException ex) {
			dataSource.close();
			throw ex;
		}
	}

	/**
	 * The pool, whose driver also gives up on a reply after the store timeout
	 * ({@code socketTimeout}, in seconds): the pool bounds the wait for a connection and
	 * the connection attempt, not the statements.
	 */
	private static HikariDataSource dataSource(String jdbcUrl) {
		Duration timeout = StoreUnderTest.STORE_TIMEOUT;
		String bounded = jdbcUrl + (jdbcUrl.contains("?") ? "&" : "?") + "socketTimeout="
				+ Math.max(1, timeout.toSeconds());
		return WorkerStores.jdbcDataSource(bounded, timeout);
	}

	/**
	 * Take a registry's lock, waiting at most the wait. The registry reports an interrupt
	 * during its pause between tries as a {@link CannotAcquireLockException}, with the
	 * interrupt as its cause.
	 */
	private static boolean tryLock(Lock lock, long waitMillis) throws InterruptedException {
		try {
			return lock.tryLock(waitMillis, TimeUnit.MILLISECONDS);
		}
		catch (CannotAcquireLockException ex) {
			if (ex.getCause() instanceof InterruptedException) {
				InterruptedException interrupted = new InterruptedException("Interrupted while waiting for a lock");
				interrupted.initCause(ex);
				throw interrupted;
			}
			throw ex;
		}
	}

	/**
	 * Create a table if absent. {@code CREATE TABLE IF NOT EXISTS} alone can fail when
	 * another worker creates the table at the same time: a transaction-scoped advisory
	 * lock on the table's name makes the creators take turns.
	 */
	private static void createTable(DataSource dataSource, String table, String ddl) {
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		new TransactionTemplate(new DataSourceTransactionManager(dataSource)).executeWithoutResult((status) -> {
			jdbc.queryForObject("SELECT 1 FROM pg_advisory_xact_lock(hashtext(?))", Integer.class, table);
			jdbc.execute(ddl);
		});
	}

	/**
	 * The {@code CREATE TABLE} statement of the lock table in the PostgreSQL script that
	 * Spring Integration ships, made idempotent.
	 */
	private static String shippedLockTable() {
		String script;
		try (InputStream in = DefaultLockRepository.class.getClassLoader().getResourceAsStream(INTEGRATION_SCHEMA)) {
			if (in == null) {
				throw new IllegalStateException("No " + INTEGRATION_SCHEMA + " on the class path");
			}
			script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		String create = "CREATE TABLE ";
		for (String statement : script.split(";")) {
			String trimmed = statement.strip();
			if (trimmed.startsWith(create + INTEGRATION_TABLE + " ")) {
				return create + "IF NOT EXISTS " + trimmed.substring(create.length());
			}
		}
		throw new IllegalStateException("No " + INTEGRATION_TABLE + " table in " + INTEGRATION_SCHEMA);
	}

}
