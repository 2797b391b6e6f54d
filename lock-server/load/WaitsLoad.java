import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * One API key parks many waiting acquisitions on a lock it holds; meanwhile another API key
 * acquires and releases other locks, and the readiness probe is asked, one request at a time.
 * Prints how the waits were answered and the latency of the other client's requests.
 *
 * Arguments: base URL, the hog's API key, the other client's API key, waits, samples.
 */
public class WaitsLoad {

	public static void main(String[] args) throws Exception {
		String base = args[0];
		String hogKey = args[1];
		String otherKey = args[2];
		int waits = Integer.parseInt(args[3]);
		int samples = Integer.parseInt(args[4]);
		// HTTP/1.1, kept-alive connections: no h2c upgrade attempt on each new connection
		HttpClient http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(Duration.ofSeconds(5))
			.build();
		String held = "held-" + UUID.randomUUID();
		HttpResponse<String> first = http.send(acquire(base, "hog", held, hogKey, "{\"ttlMillis\":60000}"),
				HttpResponse.BodyHandlers.ofString());
		if (first.statusCode() != 201) {
			throw new IllegalStateException("The hog could not take its lock: " + first.body());
		}
		List<CompletableFuture<HttpResponse<String>>> parked = new ArrayList<>();
		for (int i = 0; i < waits; i++) {
			parked.add(http.sendAsync(acquire(base, "hog", held, hogKey, "{\"waitMillis\":15000}"),
					HttpResponse.BodyHandlers.ofString()));
		}
		Thread.sleep(2000);
		long answeredEarly = parked.stream().filter(CompletableFuture::isDone).count();
		List<Long> acquireMicros = new ArrayList<>();
		List<Long> readyMicros = new ArrayList<>();
		for (int i = 0; i < samples; i++) {
			long started = System.nanoTime();
			HttpResponse<String> acquired = http.send(
					acquire(base, "other", "k-" + UUID.randomUUID(), otherKey, null),
					HttpResponse.BodyHandlers.ofString());
			acquireMicros.add((System.nanoTime() - started) / 1000);
			if (acquired.statusCode() != 201) {
				throw new IllegalStateException("The other client was refused: " + acquired.body());
			}
			String token = acquired.body().replaceAll(".*\"ownerToken\":\"([^\"]+)\".*", "$1");
			String key = acquired.body().replaceAll(".*\"key\":\"([^\"]+)\".*", "$1");
			http.send(HttpRequest.newBuilder(URI.create(base + "/v1/namespaces/other/locks/" + key))
				.DELETE()
				.header("Authorization", "Bearer " + otherKey)
				.header("Lock-Owner-Token", token)
				.build(), HttpResponse.BodyHandlers.discarding());
			started = System.nanoTime();
			int ready = http.send(HttpRequest.newBuilder(URI.create(base + "/readyz")).build(),
					HttpResponse.BodyHandlers.discarding()).statusCode();
			readyMicros.add((System.nanoTime() - started) / 1000);
			if (ready != 200) {
				throw new IllegalStateException("/readyz answered " + ready);
			}
		}
		long stillWaiting = parked.stream().filter((wait) -> !wait.isDone()).count();
		Map<Integer, Integer> early = new TreeMap<>();
		parked.stream()
			.filter(CompletableFuture::isDone)
			.forEach((wait) -> early.merge(wait.join().statusCode(), 1, Integer::sum));
		System.out.printf("RESULT waits=%d answered-at-once=%d %s still-waiting-after-samples=%d%n", waits,
				answeredEarly, early, stillWaiting);
		System.out.printf("RESULT other client's acquire: %s%n", summary(acquireMicros));
		System.out.printf("RESULT readiness probe: %s%n", summary(readyMicros));
		parked.forEach((wait) -> wait.cancel(true));
	}

	private static HttpRequest acquire(String base, String namespace, String key, String apiKey, String body) {
		HttpRequest.Builder request = HttpRequest
			.newBuilder(URI.create(base + "/v1/namespaces/" + namespace + "/locks/" + key))
			.timeout(Duration.ofSeconds(60))
			.header("Authorization", "Bearer " + apiKey);
		if (body == null) {
			return request.POST(HttpRequest.BodyPublishers.noBody()).build();
		}
		return request.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(body))
			.build();
	}

	private static String summary(List<Long> micros) {
		List<Long> sorted = new ArrayList<>(micros);
		Collections.sort(sorted);
		return String.format("n=%d p50=%.2f ms p90=%.2f ms max=%.2f ms", sorted.size(),
				sorted.get(sorted.size() / 2) / 1000.0, sorted.get((int) (sorted.size() * 0.9)) / 1000.0,
				sorted.get(sorted.size() - 1) / 1000.0);
	}

}
