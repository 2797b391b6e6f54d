/**
 * The etcd lock store, on jetcd: locks as keys bound to leases, written by conditional
 * transactions, fenced by etcd's revisions, with release notifications from a watch.
 */
@NullMarked
package dev.lockstarter.store.etcd;

import org.jspecify.annotations.NullMarked;
