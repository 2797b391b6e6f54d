/**
 * A real MariaDB server for tests, run from the local MariaDB binaries.
 */
@NullMarked
package dev.lockstarter.test.mariadb;

import org.jspecify.annotations.NullMarked;
