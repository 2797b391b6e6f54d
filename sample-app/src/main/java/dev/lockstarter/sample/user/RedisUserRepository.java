package dev.lockstarter.sample.user;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.util.CollectionUtils;

/**
 * {@link UserRepository} that keeps users in Redis, so that every instance of the
 * application sees the same users:
 * <ul>
 * <li>{@code sample:users:{userId}}: the user as JSON;</li>
 * <li>{@code sample:users-by-name:{userName}}: a list of the ids stored under the name,
 * in the order they were stored.</li>
 * </ul>
 * A user is written before its id is added to the name's list, so a reader never finds an
 * id without its user.
 *
 * @since 0.1.0
 */
public class RedisUserRepository implements UserRepository {

	private static final String USER_KEY_PREFIX = "sample:users:";

	private static final String NAME_KEY_PREFIX = "sample:users-by-name:";

	private final StringRedisTemplate redis;

	private final JsonMapper jsonMapper;

	/**
	 * Create a new repository.
	 * @param redis the template to reach Redis with
	 * @param jsonMapper the mapper that writes and reads users as JSON
	 */
	public RedisUserRepository(StringRedisTemplate redis, JsonMapper jsonMapper) {
		this.redis = redis;
		this.jsonMapper = jsonMapper;
	}

	@Override
	public void save(User user) {
		this.redis.opsForValue().set(USER_KEY_PREFIX + user.userId(), this.jsonMapper.writeValueAsString(user));
		this.redis.opsForList().rightPush(NAME_KEY_PREFIX + user.userName(), user.userId());
	}

	@Override
	public Optional<User> findById(String userId) {
		return Optional.ofNullable(read(this.redis.opsForValue().get(USER_KEY_PREFIX + userId)));
	}

	@Override
	public List<User> findByName(String userName) {
		List<String> userIds = this.redis.opsForList().range(NAME_KEY_PREFIX + userName, 0, -1);
		if (CollectionUtils.isEmpty(userIds)) {
			return List.of();
		}
		List<String> userKeys = userIds.stream().map((userId) -> USER_KEY_PREFIX + userId).toList();
		@Nullable List<@Nullable String> json = this.redis.opsForValue().multiGet(userKeys);
		return (json != null) ? json.stream().map(this::read).filter(Objects::nonNull).toList() : List.of();
	}

	@Override
	public boolean existsByName(String userName) {
		return this.redis.hasKey(NAME_KEY_PREFIX + userName);
	}

	private @Nullable User read(@Nullable String json) {
		return (json != null) ? this.jsonMapper.readValue(json, User.class) : null;
	}

}
