package dev.lockstarter.store.jdbc;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool.PoolInitializationException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.LockStoreException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A {@link JdbcLockStore} whose data source throws an unchecked exception instead of
 * giving a connection fails every operation with a {@link LockStoreException} that names
 * the operation and the lock, as for any other failure of the database, so that the
 * engine fails closed. The data source is a real pool on an in-memory H2 database behind
 * a {@link FailingDataSource}.
 */
class JdbcDataSourceFailureTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	private HikariDataSource database;

	private FailingDataSource dataSource;

	private JdbcLockStore store;

	@BeforeEach
	void createStore() {
		this.database = TestDataSources.h2();
		this.dataSource = new FailingDataSource(this.database);
		this.store = new JdbcLockStore(this.dataSource, JdbcLockStore.DEFAULT_TABLE_NAME, Duration.ofSeconds(2));
		this.store.createSchema();
	}

	@AfterEach
	void closePool() {
		this.store.close();
		this.database.close();
	}

	@Test
	void everyOperationFailsWithALockStoreExceptionNamingTheLockWhenTheDataSourceThrowsAnUncheckedException() {
		String key = "unchecked:" + UUID.randomUUID();
		String token = token();
		assertThat(this.store.tryAcquire(key, token, TTL).isAcquired()).isTrue();
		JdbcLockStore joining = new JdbcLockStore(this.dataSource, JdbcLockStore.DEFAULT_TABLE_NAME,
				Duration.ofSeconds(2));
		joining.setJoinTransactionForResults(true);
		this.dataSource.failWith(new PoolInitializationException(new IllegalStateException("no database")));
		Map<String, ThrowingCallable> operations = new LinkedHashMap<>();
		operations.put("acquire", () -> this.store.tryAcquire(key, token(), TTL));
		operations.put("release", () -> this.store.release(key, token));
		operations.put("extend", () -> this.store.extend(key, token, TTL));
		operations.put("extend all", () -> this.store.extendAll(List.of(key), List.of(token), TTL));
		operations.put("store a result", () -> this.store.putResult(key, token, new byte[] { 1 }, TTL));
		operations.put("store a result joining the transaction",
				() -> joining.putResult(key, token, new byte[] { 1 }, TTL));
		operations.put("read a result", () -> this.store.getResult(key));
		operations.put("read the time to expiry", () -> this.store.timeToExpiry(key));
		operations.put("acquire a permit", () -> this.store.tryAcquirePermit(key, token(), TTL, 2));
		operations.put("acquire a read lock", () -> this.store.tryAcquireRead(key, token(), TTL));
		operations.put("acquire a write lock", () -> this.store.tryAcquireWrite(key, token(), TTL, TTL));
		operations.put("release a place", () -> this.store.releaseShared(key, token));
		operations.put("extend a place", () -> this.store.extendShared(key, token, TTL));
		operations.put("read the time to expiry of the places", () -> this.store.sharedTimeToExpiry(key));
		operations.put("force-release", () -> this.store.forceRelease(key));
		operations.forEach((operation, call) -> assertThatExceptionOfType(LockStoreException.class).as(operation)
			.isThrownBy(call)
			.withMessageContaining("'" + key + "'")
			.withRootCauseInstanceOf(IllegalStateException.class)
			.satisfies((ex) -> assertThat(ex.getLockName()).as("lock of %s", operation).isEqualTo(key)));
		Map<String, ThrowingCallable> keyless = new LinkedHashMap<>();
		keyless.put("list holders", () -> this.store.holders("unchecked:", 10));
		keyless.put("clean up", () -> this.store.cleanUp());
		keyless.put("create the schema", () -> this.store.createSchema());
		keyless.forEach((operation, call) -> assertThatExceptionOfType(LockStoreException.class).as(operation)
			.isThrownBy(call)
			.withMessageContaining("JDBC lock store failed to")
			.withRootCauseInstanceOf(IllegalStateException.class));
	}

	@Test
	void theTemplateFailsClosedWhenTheDataSourceThrowsAnUncheckedException() {
		LockTemplate template = new LockTemplate(this.store);
		this.dataSource.failWith(new PoolInitializationException(new IllegalStateException("no database")));
		AtomicBoolean ran = new AtomicBoolean();
		assertThatExceptionOfType(LockStoreException.class)
			.isThrownBy(() -> template.execute("unchecked", TTL, () -> ran.getAndSet(true)))
			.withMessageContaining("unchecked");
		assertThat(ran).as("whether the guarded action ran").isFalse();
	}

	private static String token() {
		return UUID.randomUUID().toString();
	}

}
