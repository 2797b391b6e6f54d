/**
 * The Redis lock store, on Spring Data Redis.
 */
@NullMarked
package dev.lockstarter.store.redis;

import org.jspecify.annotations.NullMarked;
