/**
 * A real Memcached server for tests:
 * {@link dev.lockstarter.test.memcached.MemcachedServer}, started from a local
 * {@code memcached} binary or a container, and the JUnit 5
 * {@link dev.lockstarter.test.memcached.MemcachedServerExtension} that manages one per
 * test class.
 */
@NullMarked
package dev.lockstarter.test.memcached;

import org.jspecify.annotations.NullMarked;
