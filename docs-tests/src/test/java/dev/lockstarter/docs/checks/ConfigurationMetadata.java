package dev.lockstarter.docs.checks;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

import tools.jackson.databind.json.JsonMapper;

/**
 * The configuration properties of the starter and the lock server, read from the
 * {@code META-INF/spring-configuration-metadata.json} files that the configuration
 * processor writes. Only the files that declare a {@code lock} property or group count:
 * those of lock-spring-boot-autoconfigure and lock-server, not Spring Boot's own.
 *
 * @param groups the names of the property groups, sorted
 * @param properties the properties, sorted by name
 * @param hints for a property's name, the values its value hint lists, in order
 */
record ConfigurationMetadata(List<String> groups, List<Property> properties, Map<String, List<String>> hints) {

	static final String LOCATION = "META-INF/spring-configuration-metadata.json";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/**
	 * Reads the metadata of the starter and the lock server from the class path.
	 * @return the metadata
	 */
	static ConfigurationMetadata fromClassPath() {
		List<Map<?, ?>> files = new ArrayList<>();
		try {
			for (URL url : Collections.list(ConfigurationMetadata.class.getClassLoader().getResources(LOCATION))) {
				try (InputStream in = url.openStream()) {
					files.add(JSON.readValue(in, Map.class));
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return of(files);
	}

	/**
	 * Reads metadata from JSON text, as the configuration processor writes it.
	 * @param json the files' text
	 * @return the metadata of the files that declare a {@code lock} property or group
	 */
	static ConfigurationMetadata fromJson(String... json) {
		List<Map<?, ?>> files = new ArrayList<>();
		for (String text : json) {
			files.add(JSON.readValue(text, Map.class));
		}
		return of(files);
	}

	private static ConfigurationMetadata of(List<Map<?, ?>> files) {
		TreeSet<String> groups = new TreeSet<>();
		List<Property> properties = new ArrayList<>();
		Map<String, List<String>> hints = new TreeMap<>();
		for (Map<?, ?> file : files) {
			List<Map<?, ?>> fileGroups = entries(file, "groups");
			List<Map<?, ?>> fileProperties = entries(file, "properties");
			if (fileGroups.stream().noneMatch(ConfigurationMetadata::isLock)
					&& fileProperties.stream().noneMatch(ConfigurationMetadata::isLock)) {
				continue;
			}
			fileGroups.forEach((group) -> groups.add((String) group.get("name")));
			fileProperties.forEach((property) -> properties.add(Property.of(property)));
			for (Map<?, ?> hint : entries(file, "hints")) {
				List<String> values = entries(hint, "values").stream()
					.map((value) -> String.valueOf(value.get("value")))
					.toList();
				if (!values.isEmpty()) {
					hints.put((String) hint.get("name"), values);
				}
			}
		}
		properties.sort(Comparator.comparing(Property::name));
		return new ConfigurationMetadata(List.copyOf(groups), List.copyOf(properties), hints);
	}

	private static boolean isLock(Map<?, ?> entry) {
		String name = String.valueOf(entry.get("name"));
		return name.equals("lock") || name.startsWith("lock.");
	}

	@SuppressWarnings("unchecked")
	private static List<Map<?, ?>> entries(Map<?, ?> file, String key) {
		Object entries = file.get(key);
		return (entries != null) ? (List<Map<?, ?>>) entries : List.of();
	}

	/**
	 * The values that a property takes, when its metadata lists them in a value hint.
	 * @param property the property
	 * @return the values, in the hint's order, or an empty list when it has no hint
	 */
	List<String> hintedValues(Property property) {
		return this.hints.getOrDefault(property.name(), List.of());
	}

	/**
	 * The group a property belongs to: the longest group name that prefixes it, else its
	 * name without its last segment.
	 * @param property the property
	 * @return the group's name
	 */
	String groupOf(Property property) {
		return this.groups.stream()
			.filter((group) -> property.name().startsWith(group + "."))
			.max(Comparator.comparingInt(String::length))
			.orElse(property.name().substring(0, Math.max(0, property.name().lastIndexOf('.'))));
	}

	/**
	 * A configuration property.
	 *
	 * @param name its name, such as {@code lock.ttl}
	 * @param type its Java type, empty when the metadata gives none
	 * @param defaultValue its default value, {@code null} when the metadata gives none
	 * @param description its description, empty when the metadata gives none
	 * @param sourceType the class that declares it, empty when the metadata gives none
	 * @param deprecated whether it is deprecated
	 */
	record Property(String name, String type, Object defaultValue, String description, String sourceType,
			boolean deprecated) {

		static Property of(Map<?, ?> entry) {
			return new Property((String) entry.get("name"), text(entry.get("type")), entry.get("defaultValue"),
					text(entry.get("description")), text(entry.get("sourceType")),
					Boolean.TRUE.equals(entry.get("deprecated")) || entry.get("deprecation") != null);
		}

		private static String text(Object value) {
			return (value != null) ? value.toString() : "";
		}

	}

}
