/**
 * The Redis lock store, on Spring Data Redis.
 * {@link dev.lockstarter.store.redis.RedisLockStore} maps the store SPI to Lua scripts,
 * which one executor per client path sends (Lettuce's own API, or a {@code RedisTemplate}
 * for Jedis and other connection factories); release notifications (classic and sharded
 * pub/sub) and replica acknowledgements are types of their own. Only the store and its
 * subscription state are public.
 */
@NullMarked
package dev.lockstarter.store.redis;

import org.jspecify.annotations.NullMarked;
