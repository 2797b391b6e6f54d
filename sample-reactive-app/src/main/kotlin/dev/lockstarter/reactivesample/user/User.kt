package dev.lockstarter.reactivesample.user

/**
 * A registered user, stored as JSON with the same fields as the Java sample's `User`.
 *
 * @property userId the id, a random UUID
 * @property userName the name, in NFC
 * @property points the points balance after the registration bonus
 */
data class User(val userId: String, val userName: String, val points: Int)

/**
 * The body of a registration: `{"userName": "alice"}`.
 *
 * @property userName the name as sent, `null` when the body lacks it
 */
data class RegistrationRequest(val userName: String? = null)

/**
 * A user name that is missing or outside [UserNames.RULE].
 */
class InvalidUserNameException(message: String) : RuntimeException(message)

/**
 * A registration of a name that is already registered.
 *
 * @property userName the name
 */
class UserAlreadyRegisteredException(val userName: String) :
	RuntimeException("User '$userName' is already registered")

/**
 * A look-up of an id that no user has.
 */
class UserNotFoundException(userId: String) : RuntimeException("No user has id '$userId'")
