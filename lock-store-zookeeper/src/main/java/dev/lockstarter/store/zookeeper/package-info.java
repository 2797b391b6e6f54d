/**
 * The ZooKeeper lock store, on Apache Curator.
 */
@NullMarked
package dev.lockstarter.store.zookeeper;

import org.jspecify.annotations.NullMarked;
