-- The tables, indexes and sequence of dev.lockstarter.store.jdbc.JdbcLockStore on MariaDB (10.5 or later, for
-- sequences and INSERT ... RETURNING; tested with 10.11), for the default table name lock_store. For another
-- table name, replace lock_store throughout, or let JdbcLockStore.createSchema() / lock.jdbc.initialize-schema
-- create them. MySQL is not supported: it has neither sequences nor INSERT ... RETURNING.
--
-- lock_key           the lock key (hashed when longer than 255 bytes of UTF-8, see JdbcLockStore.storedKey),
--                    compared byte for byte (utf8mb4_nopad_bin: case and trailing spaces count)
-- owner_token        the holder's token; NULL when the lock is free
-- expires_at         when the lock expires, in UTC on the database's clock (UTC_TIMESTAMP(6))
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
-- lock_store_keys     a row per key with shared places, whose row lock serializes the key's acquisitions
-- The clean-up deletes places and waits a minute after they expired, and keys left with neither.

CREATE SEQUENCE IF NOT EXISTS lock_store_fence_seq;

CREATE TABLE IF NOT EXISTS lock_store (
	lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY,
	owner_token VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
	expires_at DATETIME(6) NOT NULL,
	fence BIGINT NOT NULL,
	result_data LONGBLOB,
	result_expires_at DATETIME(6),
	INDEX lock_store_expires_at_idx (expires_at)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS lock_store_holders (
	lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
	owner_token VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
	kind VARCHAR(6) NOT NULL,
	expires_at DATETIME(6) NOT NULL,
	fence BIGINT NOT NULL,
	PRIMARY KEY (lock_key, owner_token),
	INDEX lock_store_holders_idx (expires_at)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS lock_store_writers (
	lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
	owner_token VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
	waits_until DATETIME(6) NOT NULL,
	PRIMARY KEY (lock_key, owner_token),
	INDEX lock_store_writers_idx (waits_until)
) ENGINE=InnoDB;

CREATE TABLE IF NOT EXISTS lock_store_keys (
	lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL PRIMARY KEY
) ENGINE=InnoDB;
