package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The account at the end of an {@link HttpScenarioRun}: the users stored under each name,
 * the payments stored for each key (each key pays its own amount), read through the
 * application's own API, and the oracle's records of which payments had their response
 * kept ({@link HttpOracle}). A payment executed twice is explained when one of its
 * executions could not keep its response: its instance died within
 * {@value #KEEP_BOUND_MILLIS} ms of it, or the store refused the response.
 */
final class HttpAccount {

	/**
	 * The longest from a payment to the keeping of its response on a live instance: a
	 * store call held up by a store pause ({@value HttpScenarioRun#STORE_PAUSE_MILLIS}
	 * ms) on a busy machine. A store that refuses the response is recorded as such.
	 */
	static final long KEEP_BOUND_MILLIS = 2000;

	private final HttpFindings findings;

	private final HttpOracle oracle;

	/** Our payment keys by amount, and the late-response control's. */
	private final Map<Long, String> paymentKeys;

	private final Map<Long, String> lateKeys;

	/** When each instance that died was seen dead (epoch millis), by id. */
	private final Map<String, Long> dead;

	private final HttpClient http = HttpClient.newBuilder()
		.version(HttpClient.Version.HTTP_1_1)
		.connectTimeout(Duration.ofSeconds(1))
		.build();

	private final JsonMapper json = JsonMapper.builder().build();

	HttpAccount(HttpFindings findings, HttpOracle oracle, Map<Long, String> paymentKeys, Map<Long, String> lateKeys,
			Map<String, Long> dead) {
		this.findings = findings;
		this.oracle = oracle;
		this.paymentKeys = paymentKeys;
		this.lateKeys = lateKeys;
		this.dead = dead;
	}

	/**
	 * Take the account through an instance that is up.
	 * @param instance the instance's base URI
	 * @param lockedNames the names registered through the locked endpoint, each with
	 * whether a client saw it registered
	 * @param unlockedNames the same through the unlocked endpoint
	 * @param registrations whether the scenario registered names at all
	 */
	void take(URI instance, Map<String, Boolean> lockedNames, Map<String, Boolean> unlockedNames,
			boolean registrations) {
		for (String[] crashed : this.oracle.records(HttpOracle.CRASHED)) {
			this.findings.crashes.merge(crashed[2], 1L, Long::sum);
		}
		if (registrations) {
			countUsers(instance, lockedNames, this.findings.registrations);
			countUsers(instance, unlockedNames, this.findings.unlocked);
		}
		Map<String, List<String>> payments = new HashMap<>();
		for (JsonNode payment : get(instance, "/api/payments")) {
			long amount = payment.get("amount").asLong();
			String key = this.paymentKeys.getOrDefault(amount, this.lateKeys.get(amount));
			if (key != null) {
				payments.computeIfAbsent(key, (k) -> new ArrayList<>()).add(payment.get("paymentId").asString());
			}
		}
		Map<String, String[]> paidRecords = new HashMap<>();
		for (String[] paid : this.oracle.records(HttpOracle.PAID)) {
			paidRecords.put(paid[2], paid);
		}
		Set<String> notKept = new HashSet<>();
		for (String[] record : this.oracle.records(HttpOracle.NOT_KEPT)) {
			notKept.add(record[2]);
		}
		Set<String> kept = new HashSet<>();
		for (String[] record : this.oracle.records(HttpOracle.KEPT)) {
			kept.add(record[2]);
			long window = Long.parseLong(record[3]);
			if (window >= 0) {
				this.findings.payments.windowMicros.add(window);
			}
		}
		Set<String> lateKeys = Set.copyOf(this.lateKeys.values());
		for (Map.Entry<String, List<String>> entry : payments.entrySet()) {
			boolean late = lateKeys.contains(entry.getKey());
			HttpFindings.Payments counts = late ? this.findings.lateResponse : this.findings.payments;
			List<String> ids = entry.getValue();
			counts.executions += ids.size();
			int deaths = 0;
			int storeFailures = 0;
			for (String id : ids) {
				if (!kept.contains(id)) {
					counts.notKept++;
					if (notKept.contains(id)) {
						storeFailures++;
					}
					else if (diedBeforeKeeping(paidRecords.get(id))) {
						deaths++;
					}
				}
			}
			if (ids.size() > 1) {
				// Each payment whose response could not be kept (its instance died, or
				// the
				// store refused it) explains one execution more
				int doubles = ids.size() - 1;
				int afterDeath = Math.min(doubles, deaths);
				int afterStoreFailure = Math.min(doubles - afterDeath, storeFailures);
				counts.doubles += doubles;
				counts.doublesAfterDeath += afterDeath;
				counts.doublesAfterStoreFailure += afterStoreFailure;
				if (afterDeath + afterStoreFailure < doubles && counts.examples.size() < 5) {
					counts.examples.add(entry.getKey() + " paid " + ids.size() + " times, " + deaths
							+ " of them on an instance that died before keeping the response, " + storeFailures
							+ " refused by the store: " + ids);
				}
			}
		}
	}

	/**
	 * Whether the instance that made a payment died before it could keep the response:
	 * within {@value #KEEP_BOUND_MILLIS} ms of the payment (keeping it is one store call,
	 * bounded by the store's time-out), or before it could even record the payment.
	 */
	private boolean diedBeforeKeeping(String @Nullable [] paid) {
		if (paid == null) {
			return !this.dead.isEmpty();
		}
		Long diedAt = this.dead.get(paid[1]);
		return diedAt != null && diedAt - Long.parseLong(paid[3]) <= KEEP_BOUND_MILLIS;
	}

	private void countUsers(URI instance, Map<String, Boolean> names, HttpFindings.Registrations counts) {
		for (Map.Entry<String, Boolean> name : names.entrySet()) {
			int stored = get(instance,
					"/api/users?userName=" + URLEncoder.encode(name.getKey(), StandardCharsets.UTF_8))
				.size();
			counts.stored += stored;
			if (stored > 1) {
				counts.duplicates++;
				if (counts.examples.size() < 5) {
					counts.examples.add(name.getKey() + " stored " + stored + " times");
				}
			}
			if (stored == 0 && name.getValue()) {
				counts.lost++;
			}
		}
	}

	private JsonNode get(URI instance, String path) {
		HttpRequest request = HttpRequest.newBuilder(instance.resolve(path)).timeout(Duration.ofSeconds(30)).build();
		for (int attempt = 1;; attempt++) {
			try {
				HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
				if (response.statusCode() == 200) {
					return this.json.readTree(response.body());
				}
				if (attempt == 5) {
					throw new IllegalStateException(
							"GET " + path + " answered " + response.statusCode() + ": " + response.body());
				}
			}
			catch (IOException ex) {
				if (attempt == 5) {
					throw new UncheckedIOException("GET " + path, ex);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted during GET " + path, ex);
			}
			Threads.sleep(500);
		}
	}

}
