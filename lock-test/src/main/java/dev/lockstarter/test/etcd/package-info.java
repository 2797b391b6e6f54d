/**
 * Real etcd for tests, run from a local {@code etcd} binary: a single
 * {@link dev.lockstarter.test.etcd.EtcdServer}, a three-member
 * {@link dev.lockstarter.test.etcd.EtcdCluster} whose members can be paused, killed and
 * restarted, their JUnit 5 extensions, and an
 * {@link dev.lockstarter.test.etcd.EtcdGateway} to check them through the v3 JSON
 * gateway.
 */
@NullMarked
package dev.lockstarter.test.etcd;

import org.jspecify.annotations.NullMarked;
