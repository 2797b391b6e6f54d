/**
 * The lock store SPI: the few atomic operations a store offers, each keyed by a full
 * store key and guarded by an owner token.
 */
@NullMarked
package dev.lockstarter.store;

import org.jspecify.annotations.NullMarked;
