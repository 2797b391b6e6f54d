package dev.lockstarter.server;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.server.LockApi.Response;

import static dev.lockstarter.server.LockServers.ALPHA_KEY;
import static dev.lockstarter.server.LockServers.BETA_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lock acquired on one lock-server instance and renewed on another, on a store that
 * expires locks by observed silence: once the first instance's own write has outlived its
 * time-to-live, the first instance must still refuse a second owner (the renewal holds
 * the lock) and accept the holder's renewal and release. A subclass starts the store's
 * server and names the store's properties.
 */
abstract class RenewalOnAnotherInstanceTests {

	/** The time-to-live of the acquisition, which the first instance counts. */
	private static final Duration ACQUIRED_TTL = Duration.ofSeconds(2);

	private final LockApi api = new LockApi(new OpenApiContract());

	private LockServers servers;

	/**
	 * Return the properties of the store under test, {@code name=value}.
	 * @return the properties
	 */
	protected abstract List<String> storeProperties();

	@BeforeEach
	void startServers() {
		this.servers = LockServers.onStore(2, storeProperties());
		// Each instance's first call opens its connections, which a busy machine may
		// not do within the store's timeout: done here, before the timed steps
		for (int instance = 0; instance < 2; instance++) {
			String url = this.servers.url(instance);
			await().atMost(Duration.ofSeconds(30)).until(() -> {
				Response warm = this.api.acquire(url, "warm-up-" + UUID.randomUUID(), ALPHA_KEY, null);
				return warm.status() == 201
						&& this.api.release(url, warm.text("key"), ALPHA_KEY, warm.text("ownerToken")).status() == 204;
			});
		}
	}

	@AfterEach
	void stopServers() {
		this.servers.close();
	}

	@Test
	void theFirstInstanceCountsARenewalOnTheSecondFromItsOwnSightOfIt() throws InterruptedException {
		String first = this.servers.url(0);
		String second = this.servers.url(1);
		String key = "renewed-elsewhere-" + UUID.randomUUID();
		Response acquired = this.api.acquire(first, key, ALPHA_KEY, "{\"ttlMillis\":" + ACQUIRED_TTL.toMillis() + "}");
		assertThat(acquired.status()).as("acquired on the first instance").isEqualTo(201);
		long acquiredAt = System.nanoTime();
		String token = acquired.text("ownerToken");
		assertThat(this.api.renew(second, key, BETA_KEY, token, "{\"ttlMillis\":60000}").status())
			.as("renewed on the second instance for a minute")
			.isEqualTo(200);
		// Past the acquisition's time-to-live by the first instance's count, which began
		// before this test's did: the lock is held by the renewal
		Thread.sleep(Math.max(0, ACQUIRED_TTL.plusMillis(200).toMillis() - millisSince(acquiredAt)));
		Response conflict = this.api.acquire(first, key, BETA_KEY, null);
		assertThat(conflict.status()).as("a second owner on the first instance").isEqualTo(409);
		assertThat(this.api.status(first, key, ALPHA_KEY).json().get("held").asBoolean())
			.as("held, by the first instance's count")
			.isTrue();
		assertThat(this.api.renew(first, key, ALPHA_KEY, token, "{\"ttlMillis\":60000}").status())
			.as("the holder's renewal on the first instance")
			.isEqualTo(200);
		assertThat(this.api.release(first, key, ALPHA_KEY, token).status())
			.as("the holder's release on the first instance")
			.isEqualTo(204);
		Response next = this.api.acquire(second, key, BETA_KEY, null);
		assertThat(next.status()).as("free after the release").isEqualTo(201);
		assertThat(this.api.release(second, key, BETA_KEY, next.text("ownerToken")).status()).isEqualTo(204);
	}

	private static long millisSince(long nanoTime) {
		return Duration.ofNanos(System.nanoTime() - nanoTime).toMillis();
	}

}
