package dev.lockstarter.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.lockstarter.benchmarks.RedisMonitor.Command;
import dev.lockstarter.test.redis.RedisServer;

/**
 * Counts the Redis commands behind one uncontended acquire + release cycle of every
 * {@link Variant}, on one thread, two ways:
 * <ul>
 * <li>{@code INFO commandstats} after {@code CONFIG RESETSTAT}: every command the server
 * executed, including those a script ran inside the server;</li>
 * <li>the {@code MONITOR} feed, which tells the commands sent by the client (each one a
 * request, so a round trip for a synchronous call) from those run inside a script.</li>
 * </ul>
 * Each variant gets a fresh server and {@value #WARM_UP} warm-up cycles (so script
 * loading and connection set-up are not counted), then {@value #CYCLES} counted cycles on
 * the keys of the JMH benchmarks. Writes a JSON document to the path given as the first
 * argument, and a summary to standard output. Further arguments name the variants to
 * count (every variant without them).
 */
public final class CommandsPerCycle {

	static final int WARM_UP = 200;

	static final int CYCLES = 1000;

	private static final Pattern COMMAND_STAT = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)");

	private CommandsPerCycle() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length < 1) {
			System.err.println("Usage: CommandsPerCycle <output.json> [variant ...], variants: "
					+ Arrays.toString(Variant.values()));
			System.exit(2);
		}
		List<Variant> variants = (args.length == 1) ? List.of(Variant.values())
				: Arrays.stream(args, 1, args.length).map(Variant::valueOf).toList();
		StringBuilder json = new StringBuilder("{\n  \"cycles\": " + CYCLES + ",\n  \"variants\": {");
		String separator = "\n";
		for (Variant variant : variants) {
			Counts counts = count(variant);
			System.out.printf("%-20s requests/cycle %5.2f %-50s in scripts %-50s commandstats total/cycle %5.2f%n",
					variant, counts.perCycle(counts.requests), counts.requests, counts.inScripts,
					counts.perCycle(counts.commandStats));
			json.append(separator).append(counts.toJson(variant));
			separator = ",\n";
		}
		json.append("\n  }\n}\n");
		Files.writeString(Path.of(args[0]), json, StandardCharsets.UTF_8);
	}

	private static Counts count(Variant variant) throws IOException {
		try (RedisServer redis = RedisServer.start(); LockCycle lock = variant.open(redis.host(), redis.port())) {
			KeyRotation keys = new KeyRotation("bench:", 0);
			for (int i = 0; i < WARM_UP; i++) {
				check(variant, lock.cycle(keys.next()));
			}
			try (RedisMonitor monitor = RedisMonitor.open(redis.host(), redis.port())) {
				redis.command("CONFIG", "RESETSTAT");
				redis.command("ECHO", "cycles-start");
				for (int i = 0; i < CYCLES; i++) {
					check(variant, lock.cycle(keys.next()));
				}
				redis.command("ECHO", "cycles-end");
				String stats = redis.command("INFO", "commandstats");
				Counts counts = new Counts();
				for (Command command : monitor.readBetween("cycles-start", "cycles-end")) {
					(command.inScript() ? counts.inScripts : counts.requests).merge(command.name(), 1L, Long::sum);
				}
				Matcher matcher = COMMAND_STAT.matcher((stats != null) ? stats : "");
				while (matcher.find()) {
					String name = matcher.group(1);
					if (!name.equals("echo") && !name.startsWith("config")) {
						counts.commandStats.merge(name, Long.parseLong(matcher.group(2)), Long::sum);
					}
				}
				return counts;
			}
		}
	}

	private static void check(Variant variant, boolean acquired) {
		if (!acquired) {
			throw new IllegalStateException(variant + " failed to acquire a free lock");
		}
	}

	private static final class Counts {

		final Map<String, Long> requests = new TreeMap<>();

		final Map<String, Long> inScripts = new TreeMap<>();

		final Map<String, Long> commandStats = new TreeMap<>();

		double perCycle(Map<String, Long> counts) {
			return counts.values().stream().mapToLong(Long::longValue).sum() / (double) CYCLES;
		}

		String toJson(Variant variant) {
			return "    \"" + variant.name() + "\": {\"description\": \"" + variant.description() + "\", \"requests\": "
					+ toJson(this.requests) + ", \"inScripts\": " + toJson(this.inScripts) + ", \"commandStats\": "
					+ toJson(this.commandStats) + "}";
		}

		private static String toJson(Map<String, Long> counts) {
			StringBuilder json = new StringBuilder("{");
			counts.forEach((name, count) -> json.append((json.length() > 1) ? ", " : "")
				.append('"')
				.append(name)
				.append("\": ")
				.append(count));
			return json.append('}').toString();
		}

	}

}
