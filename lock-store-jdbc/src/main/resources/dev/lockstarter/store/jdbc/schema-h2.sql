-- The tables, indexes and sequence of dev.lockstarter.store.jdbc.JdbcLockStore on H2 2.x (tested with
-- 2.4.240, in H2's regular mode), for the default table name lock_store. For another table name, replace
-- lock_store throughout, or let JdbcLockStore.createSchema() / lock.jdbc.initialize-schema create them.
-- The columns are those of schema-postgresql.sql.
-- lock_store_keys holds a row per key of a shared lock, which an acquisition selects FOR UPDATE to serialize
-- the acquisitions of the key (on PostgreSQL, an advisory lock does it).

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

CREATE TABLE IF NOT EXISTS lock_store_holders (
	lock_key VARCHAR(255) NOT NULL,
	owner_token VARCHAR(255) NOT NULL,
	kind VARCHAR(6) NOT NULL,
	expires_at TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	fence BIGINT NOT NULL,
	PRIMARY KEY (lock_key, owner_token)
);

CREATE INDEX IF NOT EXISTS lock_store_holders_idx ON lock_store_holders (expires_at);

CREATE TABLE IF NOT EXISTS lock_store_writers (
	lock_key VARCHAR(255) NOT NULL,
	owner_token VARCHAR(255) NOT NULL,
	waits_until TIMESTAMP(6) WITH TIME ZONE NOT NULL,
	PRIMARY KEY (lock_key, owner_token)
);

CREATE INDEX IF NOT EXISTS lock_store_writers_idx ON lock_store_writers (waits_until);

CREATE TABLE IF NOT EXISTS lock_store_keys (lock_key VARCHAR(255) NOT NULL PRIMARY KEY);
