package dev.lockstarter.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A description of the machine a run happened on, for the report.
 */
final class Machine {

	private Machine() {
	}

	static Map<String, String> describe() {
		Map<String, String> machine = new LinkedHashMap<>();
		machine.put("CPU", firstLine("/proc/cpuinfo", "model name") + ", " + Runtime.getRuntime().availableProcessors()
				+ " cores available to the JVM");
		String memory = firstLine("/proc/meminfo", "MemTotal");
		if (!memory.equals("unknown")) {
			long kib = Long.parseLong(memory.replaceAll("[^0-9]", ""));
			memory = String.format("%.1f GiB", kib / 1024.0 / 1024.0);
		}
		machine.put("memory", memory);
		machine.put("OS", System.getProperty("os.name") + " " + System.getProperty("os.version"));
		machine.put("Java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
		machine.put("Redis", command("redis-server", "--version"));
		return machine;
	}

	static String loadAverage() {
		try {
			String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
			return fields[0] + " " + fields[1] + " " + fields[2];
		}
		catch (IOException | RuntimeException ex) {
			return "unknown";
		}
	}

	private static String firstLine(String file, String prefix) {
		try {
			for (String line : Files.readAllLines(Path.of(file))) {
				if (line.startsWith(prefix)) {
					return line.substring(line.indexOf(':') + 1).strip();
				}
			}
		}
		catch (IOException ex) {
			// Not Linux
		}
		return "unknown";
	}

	private static String command(String... command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
			process.waitFor(10, TimeUnit.SECONDS);
			return output;
		}
		catch (IOException ex) {
			return "unknown";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "unknown";
		}
	}

}
