-- The tables, indexes and sequence of dev.lockstarter.store.jdbc.JdbcLockStore on PostgreSQL (11 or later;
-- tested with 15), for the default table name lock_store. For another table name, replace lock_store
-- throughout, or let JdbcLockStore.createSchema() / lock.jdbc.initialize-schema create them.
--
-- lock_key           the lock key (hashed when longer than 255 bytes of UTF-8, see JdbcLockStore.storedKey)
-- owner_token        the holder's token; NULL when the lock is free
-- expires_at         when the lock expires, on the database's clock
-- fence              the fencing token of the last acquisition, from lock_store_fence_seq
-- result_data        the result kept next to the lock (single-flight, idempotent requests), or NULL
-- result_expires_at  when that result expires
--
-- Rows stay after a release; the clean-up deletes them a minute after both the lock and the result expired.
--
-- Shared locks (permits, read/write locks) live beside the lock table:
-- lock_store_holders  a row per place: lock_key, owner_token, kind (permit, read or write), expires_at (on the
--                     database's clock) and fence (the place's fencing token, from lock_store_fence_seq)
-- lock_store_writers  a row per writer waiting for a read/write lock (no new reader is admitted while one
--                     waits): lock_key, owner_token, waits_until
-- The clean-up deletes places and waits a minute after they expired.

CREATE SEQUENCE IF NOT EXISTS lock_store_fence_seq;

CREATE TABLE IF NOT EXISTS lock_store (
	lock_key VARCHAR(255) COLLATE "C" NOT NULL PRIMARY KEY,
	owner_token VARCHAR(255),
	expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
	fence BIGINT NOT NULL,
	result_data BYTEA,
	result_expires_at TIMESTAMP WITH TIME ZONE
);

CREATE INDEX IF NOT EXISTS lock_store_expires_at_idx ON lock_store (expires_at);

CREATE TABLE IF NOT EXISTS lock_store_holders (
	lock_key VARCHAR(255) COLLATE "C" NOT NULL,
	owner_token VARCHAR(255) NOT NULL,
	kind VARCHAR(6) NOT NULL,
	expires_at TIMESTAMP WITH TIME ZONE NOT NULL,
	fence BIGINT NOT NULL,
	PRIMARY KEY (lock_key, owner_token)
);

CREATE INDEX IF NOT EXISTS lock_store_holders_idx ON lock_store_holders (expires_at);

CREATE TABLE IF NOT EXISTS lock_store_writers (
	lock_key VARCHAR(255) COLLATE "C" NOT NULL,
	owner_token VARCHAR(255) NOT NULL,
	waits_until TIMESTAMP WITH TIME ZONE NOT NULL,
	PRIMARY KEY (lock_key, owner_token)
);

CREATE INDEX IF NOT EXISTS lock_store_writers_idx ON lock_store_writers (waits_until);
