package dev.lockstarter.store.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.LockStoreException;
import dev.lockstarter.store.AcquireResult;
import dev.lockstarter.store.ReleaseListeners;
import dev.lockstarter.store.ReleaseNotifyingLockStore;
import dev.lockstarter.store.ResultStoringLockStore;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.util.Assert;

/**
 * {@link dev.lockstarter.store.LockStore} on Redis, through Spring Data Redis.
 * <p>
 * A lock is a string key whose value is the owner token, with a millisecond expiry
 * ({@code PX}). Each operation is one Lua script, sent as {@code EVALSHA} (falling back to
 * {@code EVAL} once after a script cache flush), so each costs exactly one round trip:
 * <ul>
 * <li>acquire: {@code SET key token NX PX ttl}; when acquired, the same script draws the
 * fencing token, and when the key is taken, it answers the holder's {@code PTTL};</li>
 * <li>release: compare-and-delete, {@code DEL} only if the value is the caller's token, then
 * {@code PUBLISH} of the key on the release channel;</li>
 * <li>extend: compare-and-extend, {@code PEXPIRE} only if the value is the caller's token; any
 * number of locks in one script with {@link #extendAll}.</li>
 * <li>put result: {@code SET key:result value PX ttl} only if the lock's value is the caller's
 * token; {@link #getResult} is a plain {@code GET}.</li>
 * </ul>
 * Keys and tokens travel only as {@code KEYS} and {@code ARGV}, never inside script text.
 * <p>
 * <b>Fencing tokens</b> come from a counter next to the lock, {@code key + ":fence"}: the
 * acquire script increments it and raises it to the Redis server's clock in microseconds if it
 * is behind. The counter expires {@value #FENCE_RETENTION_HOURS} hours after the key's last
 * acquisition, so that keys used once do not accumulate. Tokens of one key strictly increase
 * while its counter lives, and after that as long as the server's clock has not moved back
 * past the last token issued: a later token is at least the server's time.
 * <p>
 * <b>Release notifications</b> are published on one channel (by default
 * {@code "lock:released"}), with the released key as message. One subscription connection,
 * opened on the first wait and shared by every waiter, dispatches them to the waiters of that
 * key. A lost notification only delays a waiter until its next poll.
 * <p>
 * Guarantees hold while Redis keeps its data: one primary, no failover that loses
 * acknowledged writes, and a {@code maxmemory-policy} of {@code noeviction}. Expiry is decided
 * by the Redis server's clock with millisecond precision. The time a call may block is bounded
 * by the connection factory's command timeout ({@code spring.data.redis.timeout}).
 *
 * @since 0.1.0
 */
public class RedisLockStore implements ReleaseNotifyingLockStore, ResultStoringLockStore, DisposableBean {

	/** The default release channel. */
	public static final String DEFAULT_CHANNEL = "lock:released";

	static final int FENCE_RETENTION_HOURS = 24;

	private static final String FENCE_RETENTION_MILLIS = Long
		.toString(Duration.ofHours(FENCE_RETENTION_HOURS).toMillis());

	/**
	 * Acquired: returns the fencing token (positive). Held: returns {@code -(PTTL) - 1}, so -1
	 * when the holder's key has no expiry.
	 */
	static final RedisScript<Long> ACQUIRE = RedisScript.of("""
			if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
			  local fence = redis.call('INCR', KEYS[2])
			  local now = redis.call('TIME')
			  local floor = now[1] .. string.format('%06d', tonumber(now[2]))
			  if fence < tonumber(floor) then
			    redis.call('SET', KEYS[2], floor)
			    fence = tonumber(floor)
			  end
			  redis.call('PEXPIRE', KEYS[2], ARGV[3])
			  return fence
			end
			local ttl = redis.call('PTTL', KEYS[1])
			if ttl < 0 then
			  ttl = 0
			end
			return -ttl - 1
			""", Long.class);

	/** Returns 1 when the caller's lock was deleted (and announced), else 0. */
	static final RedisScript<Long> RELEASE = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  redis.call('DEL', KEYS[1])
			  redis.call('PUBLISH', ARGV[2], KEYS[1])
			  return 1
			end
			return 0
			""", Long.class);

	/** Returns 1 when the caller's lock was extended, else 0. */
	static final RedisScript<Long> EXTEND = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
			end
			return 0
			""", Long.class);

	/** Returns 1 when the caller holds the lock and its result is stored, else 0. */
	static final RedisScript<Long> PUT_RESULT = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
			  return 1
			end
			return 0
			""", Long.class);

	/** ARGV[1] is the TTL, ARGV[i + 1] the token of KEYS[i]; returns 1 or 0 for each key. */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> EXTEND_ALL = RedisScript.of("""
			local extended = {}
			for i = 1, #KEYS do
			  if redis.call('GET', KEYS[i]) == ARGV[i + 1] then
			    extended[i] = redis.call('PEXPIRE', KEYS[i], ARGV[1])
			  else
			    extended[i] = 0
			  end
			end
			return extended
			""", List.class);

	private final RedisConnectionFactory connectionFactory;

	private final StringRedisTemplate redis;

	private final RedisTemplate<String, byte[]> binary;

	private final String channel;

	private final ReleaseListeners listeners = new ReleaseListeners();

	private final ReentrantLock containerLock = new ReentrantLock();

	private @Nullable RedisMessageListenerContainer container;

	/**
	 * Create a store on the given connection factory, announcing releases on
	 * {@link #DEFAULT_CHANNEL}.
	 * @param connectionFactory the Redis connection factory
	 */
	public RedisLockStore(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, DEFAULT_CHANNEL);
	}

	/**
	 * Create a store on the given connection factory.
	 * @param connectionFactory the Redis connection factory
	 * @param channel the channel on which releases are announced
	 */
	public RedisLockStore(RedisConnectionFactory connectionFactory, String channel) {
		Assert.notNull(connectionFactory, "'connectionFactory' must not be null");
		Assert.hasText(channel, "'channel' must not be empty");
		this.connectionFactory = connectionFactory;
		this.redis = new StringRedisTemplate(connectionFactory);
		this.binary = binaryTemplate(connectionFactory);
		this.channel = channel;
	}

	@Override
	public AcquireResult tryAcquire(String key, String token, Duration ttl) {
		Long answer = run("acquire", key, ACQUIRE, List.of(key, key + ":fence"), token, millis(ttl),
				FENCE_RETENTION_MILLIS);
		long value = (answer != null) ? answer : -1L;
		if (value > 0) {
			return AcquireResult.acquired(value);
		}
		return AcquireResult.held(Duration.ofMillis(-value - 1));
	}

	@Override
	public boolean release(String key, String token) {
		Long answer = run("release", key, RELEASE, List.of(key), token, this.channel);
		return answer != null && answer == 1L;
	}

	@Override
	public boolean extend(String key, String token, Duration ttl) {
		Long answer = run("extend", key, EXTEND, List.of(key), token, millis(ttl));
		return answer != null && answer == 1L;
	}

	@Override
	public boolean[] extendAll(List<String> keys, List<String> tokens, Duration ttl) {
		Assert.isTrue(keys.size() == tokens.size(), "'keys' and 'tokens' must have the same size");
		if (keys.isEmpty()) {
			return new boolean[0];
		}
		List<String> args = new ArrayList<>(tokens.size() + 1);
		args.add(millis(ttl));
		args.addAll(tokens);
		List<?> answer;
		try {
			answer = this.redis.execute(EXTEND_ALL, keys, args.toArray());
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(keys.get(0),
					"Redis lock store failed to extend " + keys.size() + " locks", ex);
		}
		boolean[] extended = new boolean[keys.size()];
		for (int i = 0; i < extended.length && answer != null && i < answer.size(); i++) {
			extended[i] = Long.valueOf(1L).equals(answer.get(i));
		}
		return extended;
	}

	@Override
	public boolean putResult(String key, String token, byte[] result, Duration ttl) {
		Long answer;
		try {
			answer = this.binary.execute(PUT_RESULT, List.of(key, resultKey(key)), utf8(token), result,
					utf8(millis(ttl)));
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "Redis lock store failed to store the result of lock '" + key + "'",
					ex);
		}
		return answer != null && answer == 1L;
	}

	@Override
	public byte @Nullable [] getResult(String key) {
		try {
			return this.binary.opsForValue().get(resultKey(key));
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "Redis lock store failed to read the result of lock '" + key + "'",
					ex);
		}
	}

	@Override
	public Subscription subscribe(String key, Runnable listener) {
		Subscription subscription = this.listeners.add(key, listener);
		try {
			ensureListening();
		}
		catch (RuntimeException ex) {
			// Waiters poll without notifications; the subscription is retried on the next wait.
		}
		return subscription;
	}

	/**
	 * Return the channel on which releases are announced.
	 * @return the channel
	 */
	public String getChannel() {
		return this.channel;
	}

	@Override
	public void destroy() {
		this.containerLock.lock();
		try {
			if (this.container != null) {
				this.container.stop();
				this.container = null;
			}
		}
		finally {
			this.containerLock.unlock();
		}
	}

	private void ensureListening() {
		if (this.container != null) {
			return;
		}
		this.containerLock.lock();
		try {
			if (this.container == null) {
				RedisMessageListenerContainer created = new RedisMessageListenerContainer();
				created.setConnectionFactory(this.connectionFactory);
				created.setRecoveryInterval(1000);
				created.addMessageListener(
						(message, pattern) -> this.listeners
							.released(new String(message.getBody(), StandardCharsets.UTF_8)),
						new ChannelTopic(this.channel));
				created.afterPropertiesSet();
				created.start();
				this.container = created;
			}
		}
		finally {
			this.containerLock.unlock();
		}
	}

	private Long run(String operation, String key, RedisScript<Long> script, List<String> keys, String... args) {
		try {
			return this.redis.execute(script, keys, (Object[]) args);
		}
		catch (DataAccessException ex) {
			throw new LockStoreException(key, "Redis lock store failed to " + operation + " lock '" + key + "'", ex);
		}
	}

	static String resultKey(String key) {
		return key + ":result";
	}

	private static RedisTemplate<String, byte[]> binaryTemplate(RedisConnectionFactory connectionFactory) {
		RedisTemplate<String, byte[]> template = new RedisTemplate<>();
		template.setConnectionFactory(connectionFactory);
		template.setKeySerializer(RedisSerializer.string());
		template.setValueSerializer(RedisSerializer.byteArray());
		template.setEnableDefaultSerializer(false);
		template.afterPropertiesSet();
		return template;
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static String millis(Duration ttl) {
		return Long.toString(Math.max(1, ttl.toMillis()));
	}

}
