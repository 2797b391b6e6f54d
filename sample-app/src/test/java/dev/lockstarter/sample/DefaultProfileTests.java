package dev.lockstarter.sample;

import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import dev.lockstarter.sample.user.InMemoryUserRepository;
import dev.lockstarter.sample.user.User;
import dev.lockstarter.sample.user.UserAlreadyRegisteredException;
import dev.lockstarter.sample.user.UserRegistrationService;
import dev.lockstarter.sample.user.UserRepository;
import dev.lockstarter.store.LockStore;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The sample app without a profile: no infrastructure, everything in memory.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.points-service.latency=10ms", "sample.sum.latency=10ms" })
class DefaultProfileTests {

	private final SampleClient client = new SampleClient();

	@LocalServerPort
	private int port;

	@Autowired
	private LockStore lockStore;

	@Autowired
	private UserRepository userRepository;

	@Autowired
	private UserRegistrationService registrations;

	@Autowired
	private ApplicationContext context;

	@Test
	void keepsLocksAndUsersInMemory() {
		assertThat(this.lockStore).isInstanceOf(InMemoryLockStore.class);
		assertThat(this.userRepository).isInstanceOf(InMemoryUserRepository.class);
	}

	@Test
	void leaderElectionIsOffUnlessEnabled() {
		assertThat(this.context.getBeanProvider(LockRegistryLeaderInitiator.class).getIfAvailable()).isNull();
		assertThat(this.client.get(base().resolve("/api/leader")).statusCode()).isEqualTo(404);
	}

	@Test
	void registrationAnswersCreatedWithTheUserAndItsLocation() {
		String userName = uniqueName();
		HttpResponse<String> response = this.client.register(base(), SampleClient.SAFE, userName);
		assertThat(response.statusCode()).isEqualTo(201);
		assertThat(response.headers().firstValue("Content-Type"))
			.hasValueSatisfying((contentType) -> assertThat(contentType).startsWith("application/json"));
		User user = this.client.user(response);
		assertThat(user.userName()).isEqualTo(userName);
		assertThat(user.points()).isEqualTo(100);
		assertThat(UUID.fromString(user.userId())).isNotNull();
		assertThat(response.headers().firstValue("Location")).hasValue("/api/users/" + user.userId());
		HttpResponse<String> located = this.client.get(base().resolve("/api/users/" + user.userId()));
		assertThat(located.statusCode()).isEqualTo(200);
		assertThat(this.client.user(located)).isEqualTo(user);
		assertThat(this.client.findByName(base(), userName)).containsExactly(user);
	}

	@Test
	void registrationOfARegisteredNameIsRejectedWith422() {
		String userName = uniqueName();
		assertThat(this.client.register(base(), SampleClient.SAFE, userName).statusCode()).isEqualTo(201);
		for (String path : List.of(SampleClient.SAFE, SampleClient.UNSAFE)) {
			HttpResponse<String> response = this.client.register(base(), path, userName);
			assertThat(response.statusCode()).isEqualTo(422);
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(this.client.problem(response)).containsEntry("status", 422)
				.containsEntry("title", "User already registered")
				.containsEntry("userName", userName);
		}
		assertThat(this.client.findByName(base(), userName)).hasSize(1);
	}

	@Test
	void registrationWithABlankOrMissingUserNameIsRejectedWith400() {
		for (String path : List.of(SampleClient.SAFE, SampleClient.UNSAFE)) {
			for (String body : List.of("{\"userName\": \"  \"}", "{\"userName\": \"\"}", "{}",
					"{\"userName\": null}")) {
				HttpResponse<String> response = this.client.post(base(), path, body);
				assertThat(response.statusCode()).as(path + " " + body).isEqualTo(400);
				assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
				assertThat(this.client.problem(response)).containsEntry("status", 400)
					.containsEntry("title", "Invalid user name");
			}
		}
	}

	@Test
	void registrationWithoutABodyIsRejectedWithAProblem() {
		HttpResponse<String> response = this.client.post(base(), SampleClient.SAFE, "");
		assertThat(response.statusCode()).isEqualTo(400);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
	}

	@Test
	void handMadeRedisLockEndpointExistsOnlyWithTheRedisProfile() {
		HttpResponse<String> response = this.client.register(base(), SampleClient.RAW, uniqueName());
		assertThat(response.statusCode()).isEqualTo(404);
	}

	@Test
	void lookupOfAnUnknownIdIsAnsweredWith404() {
		HttpResponse<String> response = this.client.get(base().resolve("/api/users/" + UUID.randomUUID()));
		assertThat(response.statusCode()).isEqualTo(404);
		assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
	}

	@Test
	void lookupOfAnUnknownNameIsAnEmptyArray() {
		assertThat(this.client.findByName(base(), uniqueName())).isEmpty();
	}

	@Test
	void lockedRegistrationChecksTheNameAgainInsideTheLock() {
		// A request that passed the fast check before another registration stored the
		// name,
		// and takes the lock after that registration released it, must still be rejected.
		String userName = uniqueName();
		this.registrations.registerExclusively(userName);
		assertThatExceptionOfType(UserAlreadyRegisteredException.class)
			.isThrownBy(() -> this.registrations.registerExclusively(userName));
		assertThat(this.client.findByName(base(), userName)).hasSize(1);
	}

	private URI base() {
		return URI.create("http://127.0.0.1:" + this.port);
	}

	private static String uniqueName() {
		return "user-" + UUID.randomUUID().toString().substring(0, 8);
	}

	@Test
	void sumAnswersTheSumAndCountsTheCall() {
		long before = this.client.longField(this.client.get(base().resolve("/api/sum/calls")), "calls");
		HttpResponse<String> response = this.client.get(base().resolve("/api/sum?values=40,%202"));
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(this.client.longField(response, "sum")).isEqualTo(42);
		assertThat(this.client.longField(this.client.get(base().resolve("/api/sum/calls")), "calls"))
			.isEqualTo(before + 1);
	}

	@Test
	void sumWithMissingBlankOrNonNumericValuesIsRejectedWith400() {
		for (String query : List.of("", "?values=", "?values=%20", "?values=1,x", "?values=1,,2", "?values=1.5")) {
			HttpResponse<String> response = this.client.get(base().resolve("/api/sum" + query));
			assertThat(response.statusCode()).as(query).isEqualTo(400);
			assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
			assertThat(this.client.problem(response)).containsEntry("status", 400)
				.containsEntry("type", "urn:lockstarter:sample:problem:invalid-sum-values");
		}
	}

}
