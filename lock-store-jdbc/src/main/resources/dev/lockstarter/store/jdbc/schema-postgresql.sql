-- The table, index and sequence of dev.lockstarter.store.jdbc.JdbcLockStore on PostgreSQL (11 or later;
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
