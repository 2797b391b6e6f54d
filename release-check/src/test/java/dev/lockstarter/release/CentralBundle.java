package dev.lockstarter.release;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The zip that Maven Central's publisher portal takes: a Maven repository layout
 * ({@code group/path/artifactId/version/file}), read whole into memory.
 */
final class CentralBundle {

	private static final Pattern LAYOUT = Pattern.compile("(.+)/([^/]+)/([^/]+)/([^/]+)");

	private final Path path;

	private final Map<String, byte[]> files;

	private CentralBundle(Path path, Map<String, byte[]> files) {
		this.path = path;
		this.files = files;
	}

	static CentralBundle open(Path path) {
		Map<String, byte[]> files = new TreeMap<>();
		try (ZipFile zip = new ZipFile(path.toFile())) {
			for (ZipEntry entry : Collections.list(zip.entries())) {
				if (!entry.isDirectory()) {
					files.put(entry.getName(), zip.getInputStream(entry).readAllBytes());
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(
					"Cannot read the bundle " + path + ": build it with ./mvnw -P release -Drevision=<version> verify",
					ex);
		}
		return new CentralBundle(path, files);
	}

	Path path() {
		return this.path;
	}

	Set<String> paths() {
		return this.files.keySet();
	}

	byte[] bytes(String path) {
		byte[] bytes = this.files.get(path);
		if (bytes == null) {
			throw new IllegalArgumentException("No " + path + " in " + this.path);
		}
		return bytes;
	}

	boolean has(String path) {
		return this.files.containsKey(path);
	}

	/**
	 * The components of the bundle, by artifact id; a path outside the repository layout
	 * is reported by {@link #strayPaths()}.
	 */
	Map<String, Component> components() {
		Map<String, Component> components = new TreeMap<>();
		for (String file : paths()) {
			Matcher matcher = LAYOUT.matcher(file);
			if (matcher.matches() && matcher.group(4).startsWith(matcher.group(2) + "-" + matcher.group(3))) {
				String groupId = matcher.group(1).replace('/', '.');
				components
					.computeIfAbsent(matcher.group(2),
							(artifactId) -> new Component(groupId, artifactId, matcher.group(3), new ArrayList<>()))
					.files()
					.add(file);
			}
		}
		return components;
	}

	List<String> strayPaths() {
		Set<String> inComponents = new HashSet<>();
		components().values().forEach((component) -> inComponents.addAll(component.files()));
		return paths().stream().filter((file) -> !inComponents.contains(file)).toList();
	}

	/**
	 * One published module: its files, named {@code artifactId-version[-classifier].ext}.
	 */
	record Component(String groupId, String artifactId, String version, List<String> files) {

		String directory() {
			return this.groupId.replace('.', '/') + "/" + this.artifactId + "/" + this.version + "/";
		}

		String file(String suffix) {
			return directory() + this.artifactId + "-" + this.version + suffix;
		}

	}

}
