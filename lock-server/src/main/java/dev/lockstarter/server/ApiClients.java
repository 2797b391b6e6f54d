package dev.lockstarter.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.util.StringUtils;

/**
 * The configured clients and their API keys, kept as SHA-256 hashes. A presented key is
 * hashed and compared with every configured hash in constant time, all of them, so the
 * time taken tells nothing about which hash, or how much of one, matched.
 * <p>
 * API keys are meant to be long random strings (at least 128 bits), for which a fast hash
 * is as strong as a slow one; a password-like key would need a slow hash instead.
 *
 * @since 0.1.0
 */
public final class ApiClients {

	/** A namespace as it may appear in a path. */
	static final Pattern NAMESPACE = Pattern.compile("[A-Za-z0-9._-]{1,64}");

	private static final Pattern SHA_256_HEX = Pattern.compile("[0-9a-fA-F]{64}");

	private final List<ApiClient> clients;

	/** A SHA-256 digest that each authentication clones, cheaper than looking one up. */
	private final MessageDigest sha256 = sha256();

	/**
	 * Check the configured clients, each with the server's limits where it sets none.
	 * @param configured the clients
	 * @param limits the server's settings, for the default rate limit, waits and locks
	 */
	ApiClients(List<LockServerProperties.Client> configured, LockServerProperties limits) {
		LockServerProperties.RateLimit rateLimit = limits.getRateLimit();
		List<ApiClient> clients = new ArrayList<>();
		for (int i = 0; i < configured.size(); i++) {
			LockServerProperties.Client client = configured.get(i);
			String property = "lock.server.clients[" + i + "]";
			String hash = client.getApiKeySha256();
			if (hash == null || !SHA_256_HEX.matcher(hash).matches()) {
				throw new IllegalStateException(property + ".api-key-sha256 must be the SHA-256 of the API key, "
						+ "64 hexadecimal digits (printf %s \"$KEY\" | sha256sum)");
			}
			String namespace = client.getNamespace();
			if (namespace == null || !NAMESPACE.matcher(namespace).matches()) {
				throw new IllegalStateException(property
						+ ".namespace must be 1 to 64 letters, digits, '.', '_' or '-', was " + quote(namespace));
			}
			String name = StringUtils.hasText(client.getName()) ? client.getName() : "client " + i;
			for (ApiClient other : clients) {
				if (other.name().equals(name)) {
					throw new IllegalStateException(property + ".name repeats the name '" + name + "'");
				}
			}
			byte[] digest = HexFormat.of().parseHex(hash.toLowerCase(Locale.ROOT));
			for (ApiClient other : clients) {
				if (MessageDigest.isEqual(other.digest, digest)) {
					throw new IllegalStateException(property + ".api-key-sha256 repeats the key of '" + other.name()
							+ "': give each client its own API key");
				}
			}
			int requestsPerSecond = (client.getRequestsPerSecond() != null) ? client.getRequestsPerSecond()
					: rateLimit.getRequestsPerSecond();
			int burst = (client.getBurst() != null) ? client.getBurst() : rateLimit.getBurst();
			if (requestsPerSecond < 0 || (requestsPerSecond > 0 && burst < 1)) {
				throw new IllegalStateException(
						property + ": requests-per-second must be 0 (no limit) or positive, " + "and burst at least 1");
			}
			int maxWaits = atLeast(property + ".max-waits", client.getMaxWaits(), limits.getMaxWaitsPerClient(), 0);
			int maxLocks = atLeast(property + ".max-locks", client.getMaxLocks(), limits.getMaxLocksPerClient(), 1);
			clients.add(new ApiClient(name, namespace, digest, requestsPerSecond, burst, maxWaits, maxLocks));
		}
		this.clients = List.copyOf(clients);
	}

	/**
	 * Return the client whose API key this is.
	 * @param apiKey the presented key
	 * @return the client, or {@code null} if no client has this key
	 */
	@Nullable ApiClient authenticate(String apiKey) {
		byte[] digest = digest(apiKey);
		ApiClient found = null;
		for (ApiClient client : this.clients) {
			if (MessageDigest.isEqual(client.digest, digest) && found == null) {
				found = client;
			}
		}
		return found;
	}

	/**
	 * Return the namespaces that clients are bound to.
	 * @return the namespaces
	 */
	List<String> namespaces() {
		return this.clients.stream().map(ApiClient::namespace).distinct().toList();
	}

	boolean isEmpty() {
		return this.clients.isEmpty();
	}

	private byte[] digest(String value) {
		MessageDigest digest;
		try {
			digest = (MessageDigest) this.sha256.clone();
		}
		catch (CloneNotSupportedException ex) {
			digest = sha256();
		}
		return digest.digest(value.getBytes(StandardCharsets.UTF_8));
	}

	private static MessageDigest sha256() {
		try {
			return MessageDigest.getInstance("SHA-256");
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is missing from this JVM", ex);
		}
	}

	private static int atLeast(String property, @Nullable Integer own, int serverDefault, int min) {
		int value = (own != null) ? own : serverDefault;
		if (value < min) {
			throw new IllegalStateException(property + " must be at least " + min + ", was " + value);
		}
		return value;
	}

	private static String quote(@Nullable String value) {
		return (value != null) ? "'" + value + "'" : "nothing";
	}

	/**
	 * An authenticated client.
	 *
	 * @param name the client's configured name
	 * @param namespace the namespace the client is bound to
	 * @param digest the SHA-256 of its API key
	 * @param requestsPerSecond its rate limit, 0 for none
	 * @param burst the requests it may make at once
	 * @param maxWaits the most acquisitions it may have waiting at once
	 * @param maxLocks the most locks it may hold at once
	 */
	record ApiClient(String name, String namespace, byte[] digest, int requestsPerSecond, int burst, int maxWaits,
			int maxLocks) {

		@Override
		public String toString() {
			return "ApiClient[" + this.name + ", " + this.namespace + "]";
		}

	}

}
