/**
 * Real ZooKeeper servers for tests, run from a local ZooKeeper installation: a standalone
 * {@link dev.lockstarter.test.zookeeper.ZooKeeperServer} and a three-server
 * {@link dev.lockstarter.test.zookeeper.ZooKeeperEnsemble} for failover tests, each with
 * its JUnit 5 extension.
 */
@NullMarked
package dev.lockstarter.test.zookeeper;

import org.jspecify.annotations.NullMarked;
