package dev.lockstarter.server;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Instances of the lock server, each a Spring application of its own on a free port, on
 * one store (Redis, unless another is named): as several servers behind a load balancer
 * share a store.
 */
final class LockServers implements AutoCloseable {

	/** Bound to namespace {@code tests}. */
	static final String ALPHA_KEY = "alpha-0f3c9e2a7b1d4c6e8a5f9b3d2c1e7a40";

	/** Bound to namespace {@code tests} too: it shares alpha's locks. */
	static final String BETA_KEY = "beta-5d2e8f1a9c3b7e4d6f0a2c8e1b9d3f57";

	/** Bound to namespace {@code other}. */
	static final String GAMMA_KEY = "gamma-7a9c1e3f5b2d4a6c8e0f1b3d5a7c9e12";

	/** Bound to namespace {@code limited}, with 1 request per second and a burst of 3. */
	static final String LIMITED_KEY = "limited-2b4d6f8a0c1e3a5c7e9b1d3f5a7c9e0b";

	/** Bound to namespace {@code shared}, whose key prefix is the starter's default. */
	static final String SHARED_KEY = "shared-8e6c4a2f0d9b7e5c3a1f8d6b4e2c0a9f";

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	private LockServers() {
	}

	/**
	 * Start {@code count} servers on the Redis at {@code port}.
	 * @param count how many
	 * @param redisPort the Redis port
	 * @param extra more properties, {@code name=value}
	 * @return the servers
	 */
	static LockServers onRedis(int count, int redisPort, String... extra) {
		return onStore(count, List.of("lock.store=redis", "spring.data.redis.host=127.0.0.1",
				"spring.data.redis.port=" + redisPort, "management.health.redis.enabled=true"), extra);
	}

	/**
	 * Start {@code count} servers on the store that {@code store} configures.
	 * @param count how many
	 * @param store the store's properties, {@code name=value}
	 * @param extra more properties, {@code name=value}
	 * @return the servers
	 */
	static LockServers onStore(int count, List<String> store, String... extra) {
		LockServers servers = new LockServers();
		try {
			for (int i = 0; i < count; i++) {
				List<String> args = new ArrayList<>(List.of("--server.port=0", "--management.server.port=0"));
				store.forEach((property) -> args.add("--" + property));
				args.addAll(client(0, "alpha", ALPHA_KEY, "tests"));
				args.addAll(client(1, "beta", BETA_KEY, "tests"));
				args.addAll(client(2, "gamma", GAMMA_KEY, "other"));
				args.addAll(client(3, "limited", LIMITED_KEY, "limited"));
				args.add("--lock.server.clients[3].requests-per-second=1");
				args.add("--lock.server.clients[3].burst=3");
				args.addAll(client(4, "shared", SHARED_KEY, "shared"));
				args.add("--lock.server.namespaces.shared.key-prefix=lock:");
				args.add("--lock.server.namespaces.shared.shares-application-keys=true");
				args.add("--lock.server.max-ttl=10m");
				for (String property : extra) {
					args.add("--" + property);
				}
				servers.contexts
					.add(new SpringApplicationBuilder(LockServerApplication.class).run(args.toArray(String[]::new)));
			}
			return servers;
		}
		catch (RuntimeException ex) {
			servers.close();
			throw ex;
		}
	}

	private static List<String> client(int index, String name, String apiKey, String namespace) {
		String prefix = "--lock.server.clients[" + index + "].";
		return List.of(prefix + "name=" + name, prefix + "namespace=" + namespace,
				prefix + "api-key-sha256=" + sha256(apiKey));
	}

	static String sha256(String value) {
		try {
			return java.util.HexFormat.of()
				.formatHex(java.security.MessageDigest.getInstance("SHA-256")
					.digest(value.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		}
		catch (java.security.NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	String url(int instance) {
		return url(instance, "http");
	}

	String url(int instance, String scheme) {
		return scheme + "://127.0.0.1:" + this.contexts.get(instance).getEnvironment().getProperty("local.server.port");
	}

	ConfigurableApplicationContext context(int instance) {
		return this.contexts.get(instance);
	}

	@Override
	public void close() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

}
