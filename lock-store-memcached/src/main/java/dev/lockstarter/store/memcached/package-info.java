/**
 * The Memcached lock store, on the xmemcached client with the binary protocol.
 */
@NullMarked
package dev.lockstarter.store.memcached;

import org.jspecify.annotations.NullMarked;
