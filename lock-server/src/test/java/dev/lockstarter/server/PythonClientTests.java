package dev.lockstarter.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import dev.lockstarter.server.LockApi.Response;
import dev.lockstarter.test.redis.RedisServerExtension;
import dev.lockstarter.test.redis.RedisTls;

import static dev.lockstarter.server.LockServers.ALPHA_KEY;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Python client ({@code clients/python}), run by {@code python3} as separate
 * processes against two server instances on a real Redis: its own unit tests, ten
 * processes incrementing one file counter under one lock (and, as a control, without it),
 * a client killed while it holds a lock, and a client of a server over TLS whose
 * certificate it trusts only through the {@code ssl_context} it is given.
 */
class PythonClientTests {

	private static final Path CLIENT = Path.of("clients", "python").toAbsolutePath();

	private static final int WORKERS = 10;

	private static final int INCREMENTS = 50;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static LockServers servers;

	private final LockApi api = new LockApi(new OpenApiContract());

	@TempDir
	Path directory;

	@BeforeAll
	static void startServers() {
		// 10 workers through 2 instances: no rate limit in the way of the count
		servers = LockServers.onRedis(2, redis.port(), "lock.server.rate-limit.requests-per-second=0");
	}

	@AfterAll
	static void stopServers() {
		servers.close();
	}

	@Test
	void theClientsOwnTestsPassAgainstARealServer() throws Exception {
		Process tests = python(List.of("-m", "unittest", "-v", "test_lock_client"),
				Map.of("LOCK_SERVER_URL", servers.url(0), "LOCK_SERVER_API_KEY", ALPHA_KEY, "LOCK_SERVER_NAMESPACE",
						"tests", "LOCK_SERVER_OTHER_NAMESPACE", "other"));
		String output = finish(tests, Duration.ofMinutes(3));
		assertThat(tests.exitValue()).as(output).isZero();
		assertThat(output).contains("OK").doesNotContain(ALPHA_KEY);
	}

	@Test
	void tenProcessesIncrementACounterExactlyUnderOneLockThroughTwoServers() throws Exception {
		assertThat(count(false)).isEqualTo(WORKERS * INCREMENTS);
	}

	@Test
	void withoutTheLockTheSameProcessesLoseUpdates() throws Exception {
		assertThat(count(true)).isLessThan(WORKERS * INCREMENTS);
	}

	@Test
	void aKilledClientsLockExpiresAtItsTimeToLive() throws Exception {
		String key = "killed-" + UUID.randomUUID();
		String script = String.join("\n", "import sys, time", "from lock_client import LockClient",
				"client = LockClient(sys.argv[1], sys.argv[2], 'tests')",
				"client.acquire(sys.argv[3], ttl_millis=2000)", "print('held', flush=True)", "time.sleep(600)");
		Process holder = python(List.of("-c", script, servers.url(0), ALPHA_KEY, key), Map.of());
		try {
			String line = new String(holder.getInputStream().readNBytes(5), StandardCharsets.UTF_8);
			assertThat(line).isEqualTo("held\n");
		}
		finally {
			holder.destroyForcibly();
			assertThat(holder.waitFor(10, TimeUnit.SECONDS)).isTrue();
		}
		long killedAt = System.nanoTime();
		// Nobody released it: it stays held until its time-to-live ends, then is free
		assertThat(this.api.acquire(servers.url(1), key, ALPHA_KEY, null).status()).isEqualTo(409);
		Response acquired = this.api.acquire(servers.url(1), key, ALPHA_KEY, "{\"waitMillis\":5000}");
		long freedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
		assertThat(acquired.status()).isEqualTo(201);
		assertThat(freedAfter).isBetween(500L, 2_500L);
		assertThat(this.api.release(servers.url(0), key, ALPHA_KEY, acquired.text("ownerToken")).status())
			.isEqualTo(204);
	}

	@Test
	void theClientTrustsAPrivateCertificateOnlyThroughItsSslContext() throws Exception {
		String key = "over-tls-" + UUID.randomUUID();
		String script = String.join("\n", "import ssl, sys", "from lock_client import LockClient",
				"url, certificate, api_key, key = sys.argv[1:5]", "try:",
				"    LockClient(url, api_key, 'tests').status(key)", "except ssl.SSLCertVerificationError:",
				"    print('unverified', flush=True)",
				"trusting = LockClient(url, api_key, 'tests', ssl_context=ssl.create_default_context(cafile=certificate))",
				"lock = trusting.acquire(key, ttl_millis=10000)",
				"print('held' if trusting.status(key).held else 'free', flush=True)", "lock.release()",
				"print('held' if trusting.status(key).held else 'free', flush=True)");
		try (RedisTls tls = RedisTls.generate();
				LockServers overTls = LockServers.onRedis(1, redis.port(),
						"spring.ssl.bundle.pem.lock-server.keystore.certificate=file:" + tls.certificate(),
						"spring.ssl.bundle.pem.lock-server.keystore.private-key=file:" + tls.privateKey(),
						"server.ssl.bundle=lock-server")) {
			Process client = python(
					List.of("-c", script, overTls.url(0, "https"), tls.certificate().toString(), ALPHA_KEY, key),
					Map.of());
			String output = finish(client, Duration.ofMinutes(1));
			assertThat(client.exitValue()).as(output).isZero();
			assertThat(output).isEqualTo("unverified\nheld\nfree\n");
		}
	}

	/**
	 * Start the workers on one file and one key, and return the final count.
	 */
	private int count(boolean withoutLock) throws Exception {
		Path counter = this.directory.resolve("counter.txt");
		Files.writeString(counter, "0\n");
		String key = "counter-" + UUID.randomUUID();
		List<Process> workers = new ArrayList<>();
		for (int i = 0; i < WORKERS; i++) {
			List<String> args = new ArrayList<>(List.of("counter_worker.py", "--urls",
					servers.url(i % 2) + "," + servers.url((i + 1) % 2), "--api-key", ALPHA_KEY, "--namespace", "tests",
					"--key", key, "--file", counter.toString(), "--increments", Integer.toString(INCREMENTS)));
			if (withoutLock) {
				args.add("--no-lock");
			}
			workers.add(python(args, Map.of()));
		}
		for (Process worker : workers) {
			String output = finish(worker, Duration.ofMinutes(3));
			assertThat(worker.exitValue()).as(output).isZero();
		}
		return Integer.parseInt(Files.readString(counter).trim());
	}

	private static Process python(List<String> args, Map<String, String> environment) throws IOException {
		List<String> command = new ArrayList<>();
		command.add("python3");
		command.addAll(args);
		ProcessBuilder builder = new ProcessBuilder(command).directory(CLIENT.toFile()).redirectErrorStream(true);
		builder.environment().putAll(environment);
		builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");
		return builder.start();
	}

	/**
	 * Wait for the process within the timeout, reading its output meanwhile on a thread
	 * of its own (a process that hangs never closes it), and return that output.
	 */
	private static String finish(Process process, Duration timeout) throws Exception {
		CompletableFuture<byte[]> output = CompletableFuture.supplyAsync(() -> {
			try {
				return process.getInputStream().readAllBytes();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		});
		if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
			process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			throw new AssertionError("python3 did not finish in " + timeout + ":\n"
					+ new String(output.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
		}
		return new String(output.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
	}

}
