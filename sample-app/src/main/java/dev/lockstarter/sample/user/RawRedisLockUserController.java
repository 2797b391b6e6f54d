package dev.lockstarter.sample.user;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.lockstarter.core.LockConflictException;
import org.springframework.context.annotation.Profile;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The same registration as {@link UserController}, locked by hand with the two Redis
 * commands a minimal correct lock needs: {@code SET key token NX PX ttl} to acquire and a
 * compare-and-delete script to release. No renewal, no waiting, no fencing: the floor
 * that the HTTP benchmark compares {@code @ExclusiveRequest} with. Available with the
 * {@code redis} profile only.
 *
 * @since 0.1.0
 */
@RestController
@RequestMapping("/api/raw/users")
@Profile("redis")
public class RawRedisLockUserController {

	private static final String LOCK_NAME = "raw-user-registration";

	private static final Duration TTL = Duration.ofSeconds(10);

	private static final RedisScript<Long> RELEASE = RedisScript.of("""
			if redis.call('GET', KEYS[1]) == ARGV[1] then
			  return redis.call('DEL', KEYS[1])
			end
			return 0
			""", Long.class);

	private final UserRegistrationService registrations;

	private final StringRedisTemplate redis;

	/**
	 * Create a new controller.
	 * @param registrations the registration service
	 * @param redis the Redis template
	 */
	public RawRedisLockUserController(UserRegistrationService registrations, StringRedisTemplate redis) {
		this.registrations = registrations;
		this.redis = redis;
	}

	/**
	 * Register a user under a hand-made Redis lock on its name.
	 * @param request the registration request
	 * @return {@code 201 Created} with the user and its location
	 */
	@PostMapping
	public ResponseEntity<User> register(@RequestBody RegistrationRequest request) {
		String userName = UserController.userName(request);
		this.registrations.checkNameIsFree(userName);
		String key = "raw-lock:" + LOCK_NAME + ":" + userName;
		String token = UUID.randomUUID().toString();
		if (!Boolean.TRUE.equals(this.redis.opsForValue().setIfAbsent(key, token, TTL))) {
			throw new LockConflictException(LOCK_NAME, TTL, 0);
		}
		try {
			return UserController.created(this.registrations.register(userName));
		}
		finally {
			this.redis.execute(RELEASE, List.of(key), token);
		}
	}

}
