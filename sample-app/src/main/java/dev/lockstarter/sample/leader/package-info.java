/**
 * Leader election among the sample's instances, with Spring Integration's
 * {@code LockRegistryLeaderInitiator} on the starter's lock registry.
 */
@NullMarked
package dev.lockstarter.sample.leader;

import org.jspecify.annotations.NullMarked;
