/**
 * A real PostgreSQL server for tests, run from the local PostgreSQL binaries.
 */
@NullMarked
package dev.lockstarter.test.postgres;

import org.jspecify.annotations.NullMarked;
