package dev.lockstarter.reactivesample

import org.springframework.boot.context.properties.ConfigurationProperties
import java.time.Duration

/**
 * Settings of the sample, under `sample`.
 *
 * @property store where the application keeps its users; set to `redis` by the `redis`
 * profile, so that several instances (Kotlin or Java) share them
 * @property pointsService settings of the simulated external points service
 */
@ConfigurationProperties("sample")
class SampleProperties(
	val store: DataStore = DataStore.MEMORY,
	val pointsService: PointsService = PointsService(),
) {

	/**
	 * Where the application keeps its users.
	 */
	enum class DataStore {

		/** In this process's memory: lost on restart, not shared between instances. */
		MEMORY,

		/** In Redis, reached through `spring.data.redis.*`, shared by every instance. */
		REDIS,

	}

	/**
	 * Settings of the simulated external points service.
	 *
	 * @property latency time each call to the points service takes
	 */
	class PointsService(val latency: Duration = Duration.ofMillis(300))

}
