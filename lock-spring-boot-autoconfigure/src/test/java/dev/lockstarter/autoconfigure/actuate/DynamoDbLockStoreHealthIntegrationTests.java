package dev.lockstarter.autoconfigure.actuate;

import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import dev.lockstarter.autoconfigure.LockAutoConfiguration;
import dev.lockstarter.test.dynamodb.DynamoDbLocalServer;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock store health indicator against DynamoDB Local, which the test stops.
 */
class DynamoDbLockStoreHealthIntegrationTests {

	private static final String ACCESS_KEY_PROPERTY = "aws.accessKeyId";

	private static final String SECRET_KEY_PROPERTY = "aws.secretAccessKey";

	/** The store's timeout, retries included, which bounds a check. */
	private static final Duration TIMEOUT = Duration.ofSeconds(1);

	@BeforeAll
	static void setPlaceholderAwsCredentials() {
		// The AWS SDK's default credentials chain reads these; DynamoDB Local accepts any
		System.setProperty(ACCESS_KEY_PROPERTY, "local");
		System.setProperty(SECRET_KEY_PROPERTY, "local");
	}

	@AfterAll
	static void clearPlaceholderAwsCredentials() {
		System.clearProperty(ACCESS_KEY_PROPERTY);
		System.clearProperty(SECRET_KEY_PROPERTY);
	}

	@Test
	void upWhileTheServerAnswersThenDownWithinTheTimeoutOnceItIsStopped() {
		try (DynamoDbLocalServer server = DynamoDbLocalServer.start()) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(LockAutoConfiguration.class,
						LockStoreHealthContributorAutoConfiguration.class))
				.withPropertyValues("lock.store=dynamodb", "lock.dynamodb.endpoint=" + server.endpoint(),
						"lock.dynamodb.region=" + DynamoDbLocalServer.REGION, "lock.dynamodb.create-table=true",
						"lock.dynamodb.timeout=" + TIMEOUT.toMillis() + "ms")
				.run((context) -> {
					HealthIndicator indicator = context.getBean("lockStoreHealthIndicator", HealthIndicator.class);
					Health up = indicator.health();
					assertThat(up.getStatus()).isEqualTo(Status.UP);
					assertThat(up.getDetails()).containsEntry("store", "dynamodb").containsKey("roundTrip");
					server.stop();
					Health down = MemcachedLockStoreHealthIntegrationTests.timed(indicator, TIMEOUT.plusSeconds(2));
					assertThat(down.getStatus()).isEqualTo(Status.DOWN);
					assertThat(down.getDetails()).containsEntry("store", "dynamodb").containsKey("error");
				});
		}
	}

}
