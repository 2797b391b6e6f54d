package dev.lockstarter.sample;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import dev.lockstarter.test.redis.RedisServerExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo page served by one instance with the {@code redis} profile, sending every
 * other request to a second instance on the same real Redis: the unsafe path registers
 * the name on both, the locked path once across both.
 */
class DemoPageAcrossInstancesBrowserTests {

	private static final Duration POINTS_LATENCY = Duration.ofSeconds(1);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	private static DemoPage page;

	private final SampleClient client = new SampleClient();

	@BeforeAll
	static void start() {
		first = startInstance();
		second = startInstance();
		page = DemoPage.open(1000, 1500);
	}

	@AfterAll
	static void stop() {
		if (page != null) {
			page.close();
		}
		for (ConfigurableApplicationContext instance : new ConfigurableApplicationContext[] { first, second }) {
			if (instance != null) {
				instance.close();
			}
		}
	}

	@Test
	void tenClicksSplitOverTwoInstancesOnTheLockedPathRegisterTheNameOnce() {
		String userName = uniqueName();
		mash(userName, SampleClient.SAFE);
		assertThat(page.statusCounts()).containsEntry(201, 1L).containsEntry(409, 9L).hasSize(2);
		assertThat(page.responses()).filteredOn((response) -> response.detail().contains("from " + secondBase()))
			.as("responses of the second instance")
			.hasSize(5);
		assertThat(page.storedCount()).isEqualTo(1);
		for (URI base : List.of(SampleClient.base(first), SampleClient.base(second))) {
			assertThat(this.client.findByName(base, userName)).hasSize(1);
		}
	}

	@Test
	void tenClicksSplitOverTwoInstancesOnTheUnsafePathRegisterTheNameSeveralTimes() {
		String userName = uniqueName();
		mash(userName, SampleClient.UNSAFE);
		assertThat(page.statusCounts().get(201)).as("201 responses").isGreaterThan(1);
		assertThat(page.storedCount()).isGreaterThan(1)
			.isEqualTo(this.client.findByName(SampleClient.base(second), userName).size());
	}

	private void mash(String userName, String path) {
		page.load(SampleClient.base(first));
		page.typeName(userName);
		page.chooseEndpoint(path);
		page.secondInstance(secondBase());
		page.mash();
		page.awaitResponses(10);
	}

	private static String secondBase() {
		return SampleClient.base(second).toString();
	}

	private static ConfigurableApplicationContext startInstance() {
		return new SpringApplicationBuilder(SampleApplication.class).profiles("redis")
			.run("--server.port=0", "--spring.data.redis.host=" + redis.host(),
					"--spring.data.redis.port=" + redis.port(),
					"--sample.points-service.latency=" + POINTS_LATENCY.toMillis() + "ms");
	}

	private static String uniqueName() {
		return "u" + UUID.randomUUID().toString().substring(0, 8);
	}

}
