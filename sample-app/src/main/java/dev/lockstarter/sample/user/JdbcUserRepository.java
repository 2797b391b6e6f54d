package dev.lockstarter.sample.user;

import java.util.List;
import java.util.Optional;

import dev.lockstarter.sample.SampleDatabase;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * {@link UserRepository} that keeps users in a table of the application's database
 * ({@code sample_users}), so that every instance of the application sees the same users.
 * The table has no unique constraint on the name, on purpose: duplicate registrations
 * stay visible, as with the other repositories; only the lock keeps names unique.
 *
 * @since 0.1.0
 */
public class JdbcUserRepository implements UserRepository {

	private final JdbcClient jdbc;

	/**
	 * Create a new repository.
	 * @param jdbc the client to reach the database with
	 */
	public JdbcUserRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Create the {@code sample_users} table and its index if they do not exist.
	 * @param database the database the table lives in
	 */
	public void createTableIfNotExists(SampleDatabase database) {
		this.jdbc.sql("""
				CREATE TABLE IF NOT EXISTS sample_users (
					seq %s,
					user_id VARCHAR(64) NOT NULL UNIQUE,
					user_name VARCHAR(1000) NOT NULL,
					points INT NOT NULL
				)""".formatted(database.identityColumn())).update();
		this.jdbc
			.sql("CREATE INDEX IF NOT EXISTS sample_users_user_name_idx ON sample_users ("
					+ database.indexedText("user_name") + ")")
			.update();
	}

	@Override
	public void save(User user) {
		this.jdbc.sql("INSERT INTO sample_users (user_id, user_name, points) VALUES (?, ?, ?)")
			.params(user.userId(), user.userName(), user.points())
			.update();
	}

	@Override
	public Optional<User> findById(String userId) {
		return this.jdbc.sql("SELECT user_id, user_name, points FROM sample_users WHERE user_id = ?")
			.param(userId)
			.query(User.class)
			.optional();
	}

	@Override
	// JdbcClient.query(Class) has @Nullable rows; a User row is not null
	@SuppressWarnings("NullAway")
	public List<User> findByName(String userName) {
		return this.jdbc.sql("SELECT user_id, user_name, points FROM sample_users WHERE user_name = ? ORDER BY seq")
			.param(userName)
			.query(User.class)
			.list();
	}

	@Override
	public boolean existsByName(String userName) {
		return !this.jdbc.sql("SELECT 1 FROM sample_users WHERE user_name = ? FETCH FIRST 1 ROWS ONLY")
			.param(userName)
			.query(Integer.class)
			.list()
			.isEmpty();
	}

}
