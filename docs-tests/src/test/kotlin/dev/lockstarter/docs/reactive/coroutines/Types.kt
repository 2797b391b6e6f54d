package dev.lockstarter.docs.reactive.coroutines

import java.util.UUID

/** A registered user. */
data class User(val name: String, val id: String = UUID.randomUUID().toString())

/** Stores users. */
interface UserRepository {

	suspend fun existsByName(name: String): Boolean

	suspend fun save(user: User): User
}

/** Grants loyalty points. */
interface PointsClient {

	suspend fun grant(userId: String, points: Int)
}

/** The receipt of a payment. */
data class Receipt(val orderId: String)

/** Charges orders. */
interface Payments {

	suspend fun charge(orderId: String, fencingToken: Long): Receipt
}
