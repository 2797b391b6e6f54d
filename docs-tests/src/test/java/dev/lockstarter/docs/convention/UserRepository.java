package dev.lockstarter.docs.convention;

import java.util.Optional;

/**
 * Where users are kept.
 */
interface UserRepository {

	Optional<User> findByName(String name);

	User save(User user);

}
