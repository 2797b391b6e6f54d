/**
 * The JDBC lock store, for PostgreSQL, MariaDB and H2:
 * {@link dev.lockstarter.store.jdbc.JdbcLockStore}, with the DDL of its table in
 * {@code schema-postgresql.sql}, {@code schema-mariadb.sql} and {@code schema-h2.sql}
 * next to it.
 */
@NullMarked
package dev.lockstarter.store.jdbc;

import org.jspecify.annotations.NullMarked;
