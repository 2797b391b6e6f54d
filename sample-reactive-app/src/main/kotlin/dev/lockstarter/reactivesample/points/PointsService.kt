package dev.lockstarter.reactivesample.points

import dev.lockstarter.reactivesample.SampleProperties
import kotlinx.coroutines.delay
import org.springframework.stereotype.Service
import java.util.concurrent.ConcurrentHashMap

/**
 * A simulated external points service: each call suspends for
 * `sample.points-service.latency` without holding a thread, then adds points to a
 * balance kept in memory.
 */
@Service
class PointsService(properties: SampleProperties) {

	private val latency = properties.pointsService.latency

	private val balances = ConcurrentHashMap<String, Int>()

	init {
		require(!latency.isNegative) { "'sample.points-service.latency' must not be negative, was $latency" }
	}

	/**
	 * Add points to a user's balance and return the new balance.
	 */
	suspend fun addPoints(userId: String, points: Int): Int {
		require(userId.isNotEmpty()) { "'userId' must not be empty" }
		delay(latency.toMillis())
		return balances.merge(userId, points, Int::plus)!!
	}

}
