-- The table, index and sequence of dev.lockstarter.store.jdbc.JdbcLockStore on H2 2.x (tested with
-- 2.4.240, in H2's regular mode), for the default table name lock_store. For another table name, replace
-- lock_store throughout, or let JdbcLockStore.createSchema() / lock.jdbc.initialize-schema create them.
-- The columns are those of schema-postgresql.sql.

CREATE SEQUENCE IF NOT EXISTS lock_store_fence_seq;

CREATE TABLE IF NOT EXISTS lock_store (
	lock_key VARCHAR(255) NOT NULL PRIMARY KEY,
	owner_token VARCHAR(255),
	expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	fence BIGINT NOT NULL,
	result_data VARBINARY,
	result_expires_at TIMESTAMP(6) WITH TIME ZONE
);

CREATE INDEX IF NOT EXISTS lock_store_expires_at_idx ON lock_store (expires_at);
