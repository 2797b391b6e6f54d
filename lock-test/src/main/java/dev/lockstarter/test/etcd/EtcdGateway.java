package dev.lockstarter.test.etcd;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Talks to one etcd member through its v3 JSON gateway ({@code grpc-gateway}, served on
 * the client URL by etcd 3.4 and later), with {@code java.net.http} and no client
 * library: the calls a test needs to check a cluster independently of the client under
 * test.
 * <p>
 * Keys and values are UTF-8 strings (the gateway carries them in base64). Every call
 * fails after {@linkplain #timeout() a timeout} if the member does not answer, as a
 * paused one does not.
 *
 * @since 0.1.0
 */
public final class EtcdGateway {

	private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

	// The gateway answers HTTP/1.1 and HTTP/2 on the same port; HTTP/1.1 avoids the h2c
	// upgrade dance on plain connections
	private static final HttpClient client = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(1))
		.build();

	private final URI endpoint;

	private final Duration timeout;

	/**
	 * Create a gateway client for a member, with a timeout of 2 seconds per call.
	 * @param endpoint the member's client URL, such as {@code http://127.0.0.1:2379}
	 */
	public EtcdGateway(String endpoint) {
		this(endpoint, DEFAULT_TIMEOUT);
	}

	/**
	 * Create a gateway client for a member.
	 * @param endpoint the member's client URL, such as {@code http://127.0.0.1:2379}
	 * @param timeout how long a call waits for an answer
	 */
	public EtcdGateway(String endpoint, Duration timeout) {
		Assert.hasText(endpoint, "'endpoint' must not be empty");
		Assert.notNull(timeout, "'timeout' must not be null");
		Assert.isTrue(!timeout.isNegative() && !timeout.isZero(), "'timeout' must be positive");
		this.endpoint = URI.create(endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint);
		this.timeout = timeout;
	}

	/**
	 * Return the member's client URL.
	 * @return the URL
	 */
	public String endpoint() {
		return this.endpoint.toString();
	}

	/**
	 * Return how long a call waits for an answer.
	 * @return the timeout
	 */
	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Write a key ({@code /v3/kv/put}); the member forwards it to the leader and answers
	 * once a majority has it.
	 * @param key the key
	 * @param value the value
	 * @return the cluster's revision after the write
	 * @throws IllegalStateException if the member answers with an error or not in time
	 */
	public long put(String key, String value) {
		Assert.hasLength(key, "'key' must not be empty");
		Assert.notNull(value, "'value' must not be null");
		String reply = post("/v3/kv/put", "{\"key\":\"" + base64(key) + "\",\"value\":\"" + base64(value) + "\"}");
		return number(reply, "revision");
	}

	/**
	 * Read a key with a linearizable read ({@code /v3/kv/range}): the member confirms
	 * with the leader that it has every committed write.
	 * @param key the key
	 * @return the value, or {@code null} if the key does not exist
	 * @throws IllegalStateException if the member answers with an error or not in time
	 */
	public @Nullable String get(String key) {
		Assert.hasLength(key, "'key' must not be empty");
		String reply = post("/v3/kv/range", "{\"key\":\"" + base64(key) + "\"}");
		String value = field(reply, "value");
		if (value != null) {
			return new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8);
		}
		// A key with an empty value has no "value" field
		return (field(reply, "create_revision") != null) ? "" : null;
	}

	/**
	 * Return the member's view of the cluster ({@code /v3/maintenance/status}).
	 * @return the status
	 * @throws IllegalStateException if the member answers with an error or not in time
	 */
	public Status status() {
		return join(statusAsync());
	}

	/**
	 * Ask for the member's view of the cluster without waiting, so that several members
	 * can be asked at once.
	 * @return the status, completed exceptionally with an {@link IllegalStateException}
	 * if the member answers with an error or not in time
	 */
	public CompletableFuture<Status> statusAsync() {
		return postAsync("/v3/maintenance/status", "{}").thenApply((reply) -> new Status(number(reply, "member_id"),
				number(reply, "leader"), number(reply, "raft_term"), number(reply, "revision")));
	}

	/**
	 * Return whether the member reports itself healthy ({@code GET /health}): it knows a
	 * leader and can serve a linearizable read. A member that does not answer in time is
	 * not healthy.
	 * @return whether the member is healthy
	 */
	public boolean isHealthy() {
		HttpRequest request = HttpRequest.newBuilder(this.endpoint.resolve("/health")).timeout(this.timeout).build();
		try {
			HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
			return response.statusCode() == 200 && "true".equals(field(response.body(), "health"));
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private String post(String path, String body) {
		return join(postAsync(path, body));
	}

	private CompletableFuture<String> postAsync(String path, String body) {
		HttpRequest request = HttpRequest.newBuilder(this.endpoint.resolve(path))
			.timeout(this.timeout)
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
			.build();
		return client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((response, failure) -> {
			if (failure != null) {
				Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure;
				throw new IllegalStateException("etcd at " + this.endpoint + " did not answer " + path + ": " + cause,
						cause);
			}
			if (response.statusCode() != 200) {
				throw new IllegalStateException("etcd at " + this.endpoint + " answered " + path + " with "
						+ response.statusCode() + ": " + response.body());
			}
			return response.body();
		});
	}

	private static <T> T join(CompletableFuture<T> future) {
		try {
			return future.join();
		}
		catch (CompletionException ex) {
			if (ex.getCause() instanceof RuntimeException cause) {
				throw cause;
			}
			throw ex;
		}
	}

	private static String base64(String text) {
		return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * The first string field of that name in a gateway reply: the replies used here hold
	 * each name once (numbers are strings, as the gateway writes 64-bit integers).
	 */
	private static @Nullable String field(String json, String name) {
		Matcher matcher = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
		return matcher.find() ? matcher.group(1) : null;
	}

	/**
	 * A 64-bit unsigned number field; the gateway leaves out fields that are zero.
	 */
	private static long number(String json, String name) {
		String value = field(json, name);
		return (value != null) ? Long.parseUnsignedLong(value) : 0;
	}

	@Override
	public String toString() {
		return "EtcdGateway[" + this.endpoint + "]";
	}

	/**
	 * A member's view of the cluster.
	 *
	 * @param memberId the id of the member that answered
	 * @param leaderId the id of the leader it follows, {@code 0} if it knows none
	 * @param raftTerm the Raft term it is in
	 * @param revision the revision of its key-value store
	 */
	public record Status(long memberId, long leaderId, long raftTerm, long revision) {

		/**
		 * Return whether the member that answered is the leader.
		 * @return whether it leads
		 */
		public boolean isLeader() {
			return this.memberId != 0 && this.memberId == this.leaderId;
		}

		@Override
		public String toString() {
			// In hexadecimal, as etcd writes them in its logs
			return "member " + Long.toHexString(this.memberId) + ", leader " + Long.toHexString(this.leaderId)
					+ ", term " + this.raftTerm + ", revision " + this.revision;
		}

	}

}
