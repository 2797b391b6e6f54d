package dev.lockstarter.store.etcd;

import java.time.Duration;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;

import org.springframework.util.Assert;

/**
 * jetcd client builders whose waits are bounded by the lock store's timeout: connecting,
 * keep-alive pings (so that a dead connection is noticed), and jetcd's own retries of
 * reads and lease grants, which stop once the timeout has passed. The store bounds every
 * call by the same timeout anyway; these settings keep the client from working on behind
 * it.
 * <p>
 * The clients send each request from the calling thread rather than through jetcd's own
 * thread pool: a request then wakes no pool thread on its way to the transport, which
 * shortens every call the store makes.
 *
 * @since 0.1.0
 */
public final class EtcdClients {

	private static final Duration KEEPALIVE_TIME = Duration.ofSeconds(10);

	private static final long RETRY_DELAY_MILLIS = 50;

	private EtcdClients() {
	}

	/**
	 * Return a client builder with waits bounded by {@code timeout}, and requests sent
	 * from the calling thread, to which the caller adds endpoints, credentials and TLS.
	 * @param timeout the lock store's timeout, positive
	 * @return a new builder
	 */
	public static ClientBuilder builder(Duration timeout) {
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isZero() && !timeout.isNegative(), () -> "'timeout' must be positive, was " + timeout);
		return Client.builder()
			.connectTimeout(timeout)
			.keepaliveTime(KEEPALIVE_TIME)
			.keepaliveTimeout(timeout)
			.keepaliveWithoutCalls(true)
			.retryDelay(RETRY_DELAY_MILLIS)
			.retryMaxDelay(Math.max(RETRY_DELAY_MILLIS, timeout.toMillis() / 4))
			.retryMaxDuration(timeout)
			.executorService(new CallingThreadExecutor());
	}

	/**
	 * Return a client of the given endpoints with waits bounded by {@code timeout}.
	 * @param timeout the lock store's timeout, positive
	 * @param endpoints the members' client URLs, such as {@code http://127.0.0.1:2379}
	 * @return a new client, for the caller to close
	 */
	public static Client client(Duration timeout, String... endpoints) {
		Assert.notEmpty(endpoints, "'endpoints' must not be empty");
		return builder(timeout).endpoints(endpoints).build();
	}

}
