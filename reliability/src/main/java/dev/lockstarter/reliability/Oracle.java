package dev.lockstarter.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The client of the oracle Redis, a second server that is never faulted and records every
 * critical section. Each step of a section is one Lua script, so that it is atomic with
 * the global sequence number ({@code seq}) it draws and the event it appends to the
 * {@code events} list. Events are space-separated fields:
 * <ul>
 * <li>{@code E seq sid key worker fencingToken occupancy millis attemptMillis}: a section
 * entered; the occupancy is what {@code INCR occ:{key}} returned (1 unless another
 * section is inside); {@code attemptMillis} is when its worker started to acquire the
 * lock;</li>
 * <li>{@code R seq sid value}: the section read the read-modify-write counter;</li>
 * <li>{@code W seq sid}: the section wrote the counter (value read + 1);</li>
 * <li>{@code F seq sid accepted}: the section wrote the fenced counter (its read + 1)
 * through the fenced register, accepted (1) or rejected as stale (0): the register
 * accepts a token at least as high as the highest it has seen, the reads' tokens
 * included;</li>
 * <li>{@code X seq sid kind millis}: the section exited ({@code x}), or was closed by the
 * harness after it killed its worker ({@code k});</li>
 * <li>{@code M seq held sid held millis}: after the exit was recorded, the worker asked
 * its lease whether it still held the lock: 1 means the lock was valid from its
 * acquisition to the recorded exit;</li>
 * <li>{@code M seq lost sid millis}: the section's lock told of its loss, as it happened
 * (this starter's lease, {@link WorkerLock.LossReporting});</li>
 * <li>{@code M seq promised sid millis}: after its loss was recorded, the section's lock
 * said that its promise still ran ({@link WorkerLock.PromiseReporting}): the lock was
 * held as promised up to the loss's record, and the store refused it all the same;</li>
 * <li>{@code M seq what worker millis}: a nemesis event (pause, resume, kill,
 * restart...);</li>
 * <li>{@code M seq clock worker offsetMillis millis}: the clock nemesis set a worker's
 * wall clock to the true time plus the offset.</li>
 * </ul>
 * Every {@code millis} is on the harness's timeline, {@link #now()}, never a wall clock.
 */
final class Oracle implements AutoCloseable {

	static final String EVENTS = "events";

	static final String SEQ = "seq";

	static final String STOP = "stop";

	private static final RedisScript<Long> ENTER = RedisScript.of("""
			local seq = redis.call('INCR', KEYS[3])
			local occ = redis.call('INCR', KEYS[1])
			redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
			redis.call('INCR', KEYS[5])
			redis.call('RPUSH', KEYS[4], 'E ' .. seq .. ' ' .. ARGV[1] .. ' ' .. ARGV[4] .. ' ' .. ARGV[2]
			  .. ' ' .. ARGV[3] .. ' ' .. occ .. ' ' .. ARGV[5] .. ' ' .. ARGV[6])
			return occ
			""", Long.class);

	/**
	 * Reads both counters; the fenced register also takes note of the reader's token, as
	 * a store that checks tokens on every access does, so that a stale holder's later
	 * write is refused even when it comes before the newer holder's write.
	 */
	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> READ = RedisScript.of("""
			local value = tonumber(redis.call('GET', KEYS[1]) or '0')
			local fenced = tonumber(redis.call('GET', KEYS[4]) or '0')
			local highest = redis.call('GET', KEYS[5])
			if highest == false or tonumber(ARGV[2]) > tonumber(highest) then
			  redis.call('SET', KEYS[5], ARGV[2])
			end
			local seq = redis.call('INCR', KEYS[2])
			redis.call('RPUSH', KEYS[3], 'R ' .. seq .. ' ' .. ARGV[1] .. ' ' .. value)
			return { value, fenced }
			""", List.class);

	private static final RedisScript<Long> WRITE = RedisScript.of("""
			redis.call('SET', KEYS[1], ARGV[2])
			local seq = redis.call('INCR', KEYS[2])
			redis.call('RPUSH', KEYS[3], 'W ' .. seq .. ' ' .. ARGV[1])
			return seq
			""", Long.class);

	/**
	 * Accepts a token at least as high as the highest seen so far (by a read or a write),
	 * and then sets the fenced counter; counts rejections.
	 */
	private static final RedisScript<Long> FENCED_WRITE = RedisScript.of("""
			local seq = redis.call('INCR', KEYS[3])
			local highest = redis.call('GET', KEYS[1])
			if highest == false or tonumber(ARGV[2]) >= tonumber(highest) then
			  redis.call('SET', KEYS[1], ARGV[2])
			  redis.call('SET', KEYS[5], ARGV[3])
			  redis.call('RPUSH', KEYS[4], 'F ' .. seq .. ' ' .. ARGV[1] .. ' 1')
			  return 1
			end
			redis.call('INCR', KEYS[2])
			redis.call('RPUSH', KEYS[4], 'F ' .. seq .. ' ' .. ARGV[1] .. ' 0')
			return 0
			""", Long.class);

	private static final RedisScript<Long> EXIT = RedisScript.of("""
			local seq = redis.call('INCR', KEYS[3])
			redis.call('DECR', KEYS[1])
			redis.call('HDEL', KEYS[2], ARGV[1])
			redis.call('RPUSH', KEYS[4], 'X ' .. seq .. ' ' .. ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. ARGV[3])
			return seq
			""", Long.class);

	private static final RedisScript<Long> MARK = RedisScript.of("""
			local seq = redis.call('INCR', KEYS[1])
			redis.call('RPUSH', KEYS[2], 'M ' .. seq .. ' ' .. ARGV[1] .. ' ' .. ARGV[2] .. ' ' .. ARGV[3])
			return seq
			""", Long.class);

	/**
	 * Closes the open sections of a killed worker: KEYS are seq, events, then occ and
	 * open of each key; ARGV the worker and the time.
	 */
	private static final RedisScript<Long> CLOSE_KILLED = RedisScript.of("""
			local closed = 0
			for i = 3, #KEYS, 2 do
			  local open = redis.call('HGETALL', KEYS[i + 1])
			  for j = 1, #open, 2 do
			    if open[j + 1] == ARGV[1] then
			      local seq = redis.call('INCR', KEYS[1])
			      redis.call('DECR', KEYS[i])
			      redis.call('HDEL', KEYS[i + 1], open[j])
			      redis.call('RPUSH', KEYS[2], 'X ' .. seq .. ' ' .. open[j] .. ' k ' .. ARGV[2])
			      closed = closed + 1
			    end
			  end
			end
			return closed
			""", Long.class);

	private final LettuceConnectionFactory connectionFactory;

	private final StringRedisTemplate redis;

	Oracle(String host, int port) {
		this.connectionFactory = connectionFactory(host, port, Duration.ofSeconds(30));
		this.redis = new StringRedisTemplate(this.connectionFactory);
	}

	static LettuceConnectionFactory connectionFactory(String host, int port, Duration timeout) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder().commandTimeout(timeout).build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * The time of the harness's timeline, in milliseconds: the machine's monotonic clock
	 * ({@code CLOCK_MONOTONIC}, which {@link System#nanoTime()} reads on Linux as is),
	 * the same in every process of the machine, and never moved by the clock nemesis (see
	 * {@link ChildJvm#faketime}). The times of the oracle's events (a worker's attempt,
	 * entry and exit, the nemeses' marks) are all on it, so that the checker compares
	 * them whatever a worker's wall clock says.
	 * @return milliseconds on the machine's monotonic clock
	 */
	static long now() {
		return System.nanoTime() / 1_000_000;
	}

	long enter(String key, String sid, String worker, long fencingToken, long attemptMillis) {
		return this.redis.execute(ENTER, List.of("occ:" + key, "open:" + key, SEQ, EVENTS, "entered:" + key), sid,
				worker, Long.toString(fencingToken), key, Long.toString(now()), Long.toString(attemptMillis));
	}

	Read read(String key, String sid, long fencingToken) {
		List<?> values = this.redis.execute(READ,
				List.of("counter:" + key, SEQ, EVENTS, "fenced-counter:" + key, "fence:" + key), sid,
				Long.toString(fencingToken));
		return new Read(((Number) values.get(0)).longValue(), ((Number) values.get(1)).longValue());
	}

	void write(String key, String sid, long value) {
		this.redis.execute(WRITE, List.of("counter:" + key, SEQ, EVENTS), sid, Long.toString(value));
	}

	boolean fencedWrite(String key, String sid, long fencingToken, long value) {
		return this.redis.execute(FENCED_WRITE,
				List.of("fence:" + key, "stale:" + key, SEQ, EVENTS, "fenced-counter:" + key), sid,
				Long.toString(fencingToken), Long.toString(value)) == 1L;
	}

	void exit(String key, String sid) {
		this.redis.execute(EXIT, List.of("occ:" + key, "open:" + key, SEQ, EVENTS), sid, "x", Long.toString(now()));
	}

	void checked(String sid, boolean held) {
		this.redis.execute(MARK, List.of(SEQ, EVENTS), "held", sid + " " + (held ? "1" : "0"), Long.toString(now()));
	}

	/**
	 * Record that a section's lock told of its loss, before the section's exit or its
	 * worker's death.
	 * @param sid the section
	 */
	void lost(String sid) {
		this.redis.execute(MARK, List.of(SEQ, EVENTS), "lost", sid, Long.toString(now()));
	}

	/**
	 * Record that a section's lock, asked after its loss was recorded ({@link #lost}),
	 * said that its promise still ran then.
	 * @param sid the section
	 */
	void lostWithinPromise(String sid) {
		this.redis.execute(MARK, List.of(SEQ, EVENTS), "promised", sid, Long.toString(now()));
	}

	void holding(String worker, int delta) {
		this.redis.opsForValue().increment("holding:" + worker, delta);
	}

	long holding(String worker) {
		String value = this.redis.opsForValue().get("holding:" + worker);
		return (value != null) ? Long.parseLong(value) : 0;
	}

	long mark(String what, String worker) {
		return this.redis.execute(MARK, List.of(SEQ, EVENTS), what, worker, Long.toString(now()));
	}

	long closeKilled(String worker, List<String> keys) {
		List<String> redisKeys = new ArrayList<>(List.of(SEQ, EVENTS));
		for (String key : keys) {
			redisKeys.add("occ:" + key);
			redisKeys.add("open:" + key);
		}
		return this.redis.execute(CLOSE_KILLED, redisKeys, worker, Long.toString(now()));
	}

	/** The sections inside now, on any of the keys. */
	java.util.Set<String> openSections(List<String> keys) {
		java.util.Set<String> open = new java.util.HashSet<>();
		for (String key : keys) {
			open.addAll(this.redis.<String, String>opsForHash().keys("open:" + key));
		}
		return open;
	}

	long entered(String key) {
		return longValue("entered:" + key);
	}

	long counter(String key) {
		return longValue("counter:" + key);
	}

	/** The fenced counter: what the writes the fenced register accepted left. */
	long fencedCounter(String key) {
		return longValue("fenced-counter:" + key);
	}

	boolean isStopped() {
		return Boolean.TRUE.equals(this.redis.hasKey(STOP));
	}

	void stop() {
		this.redis.opsForValue().set(STOP, "1");
	}

	List<String> events() {
		List<String> events = this.redis.opsForList().range(EVENTS, 0, -1);
		return (events != null) ? events : List.of();
	}

	private long longValue(String key) {
		String value = this.redis.opsForValue().get(key);
		return (value != null) ? Long.parseLong(value) : 0;
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

	/**
	 * What a section read.
	 *
	 * @param counter the read-modify-write counter
	 * @param fencedCounter the counter behind the fenced register
	 */
	record Read(long counter, long fencedCounter) {
	}

}
