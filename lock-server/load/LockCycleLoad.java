import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.store.redis.RedisLockStore;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Acquire + release cycles for a while, on threads of their own keys, reporting cycles per
 * second and the p50/p99 latency of one cycle:
 * <ul>
 * <li>{@code direct}: {@code LockTemplate.acquire} and {@code Lease.close} on a Redis store;</li>
 * <li>{@code http}: {@code POST} then {@code DELETE} with the owner token against the lock
 * server, on one keep-alive HTTP/1.1 connection per thread;</li>
 * <li>any other mode ({@code floor-tomcat}, {@code floor-netty}): the same HTTP cycle
 * against another base URL, a {@code FloorServer.java}, reported under that mode's
 * name.</li>
 * </ul>
 * Usage: {@code java -cp <lock-server classpath> LockCycleLoad.java direct|http|<mode> <target>
 * <threads> <seconds>}, where the target is {@code host:port} of Redis or the server's
 * base URL; the API key comes from {@code LOCK_SERVER_API_KEY}.
 * <p>
 * Besides the rates, it reports the CPU time that each process spent per cycle while it
 * measured: its own ({@code cpu_us_driver}), and that of every process named in
 * {@code LOAD_CPU_PIDS} ({@code name=pid,...}, read from {@code /proc/<pid>/stat} in
 * ticks of {@code CLK_TCK}, 100 unless set). On a machine whose cores are all busy,
 * the sum of a cycle's CPU times decides its rate, whatever share of the cores the
 * machine's other tenants take while it runs.
 */
public class LockCycleLoad {

	private static final Pattern TOKEN = Pattern.compile("\"ownerToken\":\"([A-Za-z0-9_-]+)\"");

	public static void main(String[] args) throws Exception {
		String mode = args[0];
		String target = args[1];
		int threads = Integer.parseInt(args[2]);
		long seconds = Long.parseLong(args[3]);
		if (mode.equals("direct")) {
			String[] hostPort = target.split(":");
			LettuceConnectionFactory factory = new LettuceConnectionFactory(hostPort[0], Integer.parseInt(hostPort[1]));
			factory.afterPropertiesSet();
			factory.start();
			LockTemplate locks = new LockTemplate(new RedisLockStore(factory));
			try {
				run(mode, threads, seconds, (thread) -> {
					int[] next = { 0 };
					return () -> {
						try (Lease lease = locks.acquire("load-" + thread + "-" + (next[0]++ % 1000),
								Duration.ofSeconds(30))) {
							lease.fencingToken();
						}
					};
				});
			}
			finally {
				locks.destroy();
				factory.destroy();
			}
		}
		else {
			String apiKey = System.getenv("LOCK_SERVER_API_KEY");
			URI base = URI.create(target);
			run(mode, threads, seconds, (thread) -> {
				Connection http = new Connection(base.getHost(), base.getPort());
				int[] next = { 0 };
				return () -> {
					String path = "/v1/namespaces/load/locks/load-" + thread + "-" + (next[0]++ % 1000);
					String acquired = http.send("POST " + path, "Authorization: Bearer " + apiKey, 201);
					Matcher token = TOKEN.matcher(acquired);
					if (!token.find()) {
						throw new IllegalStateException("acquire answered " + acquired);
					}
					http.send("DELETE " + path,
							"Authorization: Bearer " + apiKey + "\r\nLock-Owner-Token: " + token.group(1), 204);
				};
			});
		}
	}

	/**
	 * One keep-alive HTTP/1.1 connection, with as little client work as a request needs:
	 * the figures are the server's, not a client library's.
	 */
	static final class Connection {

		private final String host;

		private final int port;

		private Socket socket;

		private BufferedInputStream in;

		private OutputStream out;

		Connection(String host, int port) {
			this.host = host;
			this.port = port;
			try {
				connect();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		/**
		 * (Re)connect: the server closes a kept-alive connection after
		 * {@code server.tomcat.max-keep-alive-requests} requests (1000).
		 */
		private void connect() throws IOException {
			if (this.socket != null) {
				this.socket.close();
			}
			this.socket = new Socket(this.host, this.port);
			this.socket.setTcpNoDelay(true);
			this.in = new BufferedInputStream(this.socket.getInputStream());
			this.out = this.socket.getOutputStream();
		}

		String send(String requestLine, String headers, int expected) throws IOException {
			this.out.write((requestLine + " HTTP/1.1\r\nHost: load\r\n" + headers + "\r\nContent-Length: 0\r\n\r\n")
				.getBytes(StandardCharsets.ISO_8859_1));
			this.out.flush();
			String status = line();
			int contentLength = -1;
			boolean chunked = false;
			boolean close = false;
			for (String header = line(); !header.isEmpty(); header = line()) {
				String lower = header.toLowerCase(Locale.ROOT);
				if (lower.startsWith("content-length:")) {
					contentLength = Integer.parseInt(lower.substring(15).trim());
				}
				else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
					chunked = true;
				}
				else if (lower.startsWith("connection:") && lower.contains("close")) {
					close = true;
				}
			}
			StringBuilder body = new StringBuilder();
			if (chunked) {
				for (int size = Integer.parseInt(line().trim(), 16); size > 0; size = Integer.parseInt(line().trim(), 16)) {
					body.append(new String(this.in.readNBytes(size), StandardCharsets.UTF_8));
					line();
				}
				line();
			}
			else if (contentLength > 0) {
				body.append(new String(this.in.readNBytes(contentLength), StandardCharsets.UTF_8));
			}
			if (close) {
				connect();
			}
			if (!status.startsWith("HTTP/1.1 " + expected)) {
				throw new IllegalStateException(requestLine + " answered " + status + " " + body);
			}
			return body.toString();
		}

		private String line() throws IOException {
			StringBuilder line = new StringBuilder();
			for (int c = this.in.read(); c != '\n'; c = this.in.read()) {
				if (c < 0) {
					throw new IOException("Connection closed");
				}
				if (c != '\r') {
					line.append((char) c);
				}
			}
			return line.toString();
		}

	}

	interface Cycle {

		void run() throws Exception;

	}

	private static void run(String mode, int threads, long seconds, IntFunction<Cycle> cycles) throws Exception {
		AtomicBoolean measuring = new AtomicBoolean();
		AtomicBoolean stop = new AtomicBoolean();
		List<long[]> samples = new ArrayList<>();
		int[] counts = new int[threads];
		List<Thread> workers = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			int thread = t;
			long[] latencies = new long[5_000_000];
			samples.add(latencies);
			Cycle cycle = cycles.apply(thread);
			Thread worker = new Thread(() -> {
				try {
					while (!stop.get()) {
						long start = System.nanoTime();
						cycle.run();
						long took = System.nanoTime() - start;
						if (measuring.get() && counts[thread] < latencies.length) {
							latencies[counts[thread]++] = took;
						}
					}
				}
				catch (Exception ex) {
					ex.printStackTrace();
					System.exit(1);
				}
			});
			workers.add(worker);
			worker.start();
		}
		Thread.sleep(Math.min(5, seconds) * 1000);
		Map<String, Long> cpuAtStart = cpuNanos();
		measuring.set(true);
		long startedAt = System.nanoTime();
		Thread.sleep(seconds * 1000);
		measuring.set(false);
		double elapsed = (System.nanoTime() - startedAt) / 1e9;
		Map<String, Long> cpuAtEnd = cpuNanos();
		stop.set(true);
		for (Thread worker : workers) {
			worker.join();
		}
		int total = Arrays.stream(counts).sum();
		long[] all = new long[total];
		int at = 0;
		for (int t = 0; t < threads; t++) {
			System.arraycopy(samples.get(t), 0, all, at, counts[t]);
			at += counts[t];
		}
		Arrays.sort(all);
		StringBuilder cpu = new StringBuilder();
		cpuAtEnd.forEach((process, nanos) -> cpu.append(String.format(Locale.ROOT, " cpu_us_%s=%.1f", process,
				(nanos - cpuAtStart.get(process)) / 1e3 / Math.max(1, total))));
		System.out.printf(Locale.ROOT,
				"RESULT mode=%s threads=%d cycles_per_s=%.0f p50_us=%.0f p99_us=%.0f cycles=%d%s%n", mode, threads,
				total / elapsed, all[total / 2] / 1e3, all[(int) (total * 0.99)] / 1e3, total, cpu);
	}

	/** The CPU time so far of this process and of each process of LOAD_CPU_PIDS. */
	private static Map<String, Long> cpuNanos() throws IOException {
		Map<String, Long> nanos = new LinkedHashMap<>();
		nanos.put("driver", ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime());
		String pids = System.getenv("LOAD_CPU_PIDS");
		long tick = 1_000_000_000L / Long.parseLong(System.getenv().getOrDefault("CLK_TCK", "100"));
		if (pids != null && !pids.isBlank()) {
			for (String named : pids.split(",")) {
				String[] nameAndPid = named.split("=");
				String stat = Files.readString(Path.of("/proc", nameAndPid[1], "stat"));
				// After the command's closing parenthesis: state is field 3, utime 14, stime 15
				String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
				nanos.put(nameAndPid[0], (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * tick);
			}
		}
		return nanos;
	}

}
