package dev.lockstarter.sample.user;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link UserRepository} that keeps users in this process's memory.
 *
 * @since 0.1.0
 */
public class InMemoryUserRepository implements UserRepository {

	private final Map<String, User> usersById = new ConcurrentHashMap<>();

	private final Map<String, List<User>> usersByName = new ConcurrentHashMap<>();

	@Override
	public void save(User user) {
		this.usersById.put(user.userId(), user);
		this.usersByName.compute(user.userName(), (name, users) -> {
			List<User> updated = (users != null) ? new ArrayList<>(users) : new ArrayList<>();
			updated.add(user);
			return List.copyOf(updated);
		});
	}

	@Override
	public Optional<User> findById(String userId) {
		return Optional.ofNullable(this.usersById.get(userId));
	}

	@Override
	public List<User> findByName(String userName) {
		return this.usersByName.getOrDefault(userName, List.of());
	}

	@Override
	public boolean existsByName(String userName) {
		return this.usersByName.containsKey(userName);
	}

}
