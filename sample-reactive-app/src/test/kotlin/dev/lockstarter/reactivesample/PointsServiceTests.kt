package dev.lockstarter.reactivesample

import dev.lockstarter.reactivesample.points.PointsService
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatIllegalArgumentException
import org.junit.jupiter.api.Test
import java.time.Duration

/**
 * The simulated points service.
 */
class PointsServiceTests {

	@Test
	fun negativeLatencyIsRefusedNamingTheProperty() {
		assertThatIllegalArgumentException()
			.isThrownBy { PointsService(SampleProperties(pointsService = SampleProperties.PointsService(Duration.ofMillis(-1)))) }
			.withMessageContaining("'sample.points-service.latency'")
	}

	@Test
	fun pointsAddUpPerUser() {
		val points = PointsService(SampleProperties(pointsService = SampleProperties.PointsService(Duration.ZERO)))
		runBlocking {
			assertThat(points.addPoints("u1", 100)).isEqualTo(100)
			assertThat(points.addPoints("u1", 5)).isEqualTo(105)
			assertThat(points.addPoints("u2", 100)).isEqualTo(100)
		}
	}

}
