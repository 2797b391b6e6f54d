package dev.lockstarter.docs.checks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.docs.checks.ConfigurationMetadata.Property;
import org.springframework.util.ClassUtils;

/**
 * Renders docs/configuration-reference.md from the configuration metadata: one table per
 * property group (property, type, default, description), groups and properties sorted by
 * name. The type of a property lists the values of its value hint, or else, for an enum,
 * every constant: a hint leaves out the constants that the property rejects.
 */
final class ConfigurationReference {

	static final String PAGE = "docs/configuration-reference.md";

	static final String REGENERATE = "./mvnw -pl docs-tests -am verify -Ddocs.regenerate=true";

	private static final Pattern PACKAGE = Pattern.compile("\\b(?:[a-z_][a-z0-9_]*\\.)+(?=[A-Z])");

	private static final Pattern PROPERTY_ROW = Pattern.compile("^\\| `([^`]+)` \\|.*");

	private ConfigurationReference() {
	}

	/**
	 * The page's text.
	 * @param metadata the metadata to render
	 * @return the Markdown page
	 */
	static String render(ConfigurationMetadata metadata) {
		StringBuilder page = new StringBuilder();
		page.append("# Configuration reference\n\n");
		page.append("Every configuration property of the starter (`lock.*`, with the `management.*` entries of the ")
			.append("locks endpoint and the lock store health check) and of the lock server (`lock.server.*`), ")
			.append("one table per group: its type, its default and what it does. ")
			.append("A duration takes a unit (`500ms`, `30s`, `10m`); a data size takes one too (`512KB`, `1MB`).\n\n");
		page.append("This page is generated from the configuration metadata of lock-spring-boot-autoconfigure and ")
			.append("lock-server, that is from the Javadoc of the properties' fields; do not edit it by hand. ")
			.append("The build fails when it is out of date. To regenerate it:\n\n");
		page.append("```shell\n").append(REGENERATE).append("\n```\n");
		Map<String, List<Property>> groups = new TreeMap<>();
		metadata.properties()
			.forEach((property) -> groups.computeIfAbsent(metadata.groupOf(property), (group) -> new ArrayList<>())
				.add(property));
		groups.forEach((group, properties) -> {
			page.append("\n## ").append(group).append("\n\n");
			page.append("| Property | Type | Default | Description |\n");
			page.append("|---|---|---|---|\n");
			properties.forEach((property) -> page.append(row(property, metadata.hintedValues(property))));
		});
		return page.toString();
	}

	/**
	 * The names of the properties that a page's tables list.
	 * @param page the page's text
	 * @return the property names, sorted
	 */
	static Set<String> propertiesIn(String page) {
		return page.lines()
			.map(PROPERTY_ROW::matcher)
			.filter(Matcher::matches)
			.map((row) -> row.group(1))
			.collect(Collectors.toCollection(TreeSet::new));
	}

	private static String row(Property property, List<String> hintedValues) {
		String description = property.description().replaceAll("\\s+", " ").strip();
		if (property.deprecated()) {
			description = "*Deprecated.* " + description;
		}
		String values = hintedValues.isEmpty() ? enumValues(property.type())
				: hintedValues.stream().map(ConfigurationReference::code).collect(Collectors.joining(", ", ": ", ""));
		return "| `" + property.name() + "` | " + code(type(property.type())) + values + " | "
				+ defaultValue(property.defaultValue(), isEnum(property.type())) + " | " + cell(description) + " |\n";
	}

	private static String type(String type) {
		return PACKAGE.matcher(type).replaceAll("").replace('$', '.').replace(",", ", ");
	}

	/**
	 * The values of an enum type as a property takes them (lower case, {@code -} for
	 * {@code _}), since the metadata does not list them.
	 */
	private static String enumValues(String type) {
		try {
			Class<?> enumType = ClassUtils.forName(type, ConfigurationReference.class.getClassLoader());
			if (!enumType.isEnum()) {
				return "";
			}
			return Arrays.stream(enumType.getEnumConstants())
				.map((constant) -> code(((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-')))
				.collect(Collectors.joining(", ", ": ", ""));
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return "";
		}
	}

	private static boolean isEnum(String type) {
		try {
			return ClassUtils.forName(type, ConfigurationReference.class.getClassLoader()).isEnum();
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

	/**
	 * The default value as the property takes it; an enum's constant as the type column
	 * lists it, whether the metadata spells it {@code read_only} or {@code read-only}.
	 */
	private static String defaultValue(@Nullable Object value, boolean isEnum) {
		if (value instanceof List<?> list) {
			return list.stream().map((item) -> code(String.valueOf(item))).collect(Collectors.joining(", "));
		}
		if (value instanceof String constant && isEnum) {
			return code(constant.toLowerCase(Locale.ROOT).replace('_', '-'));
		}
		return (value != null) ? code(String.valueOf(value)) : "";
	}

	private static String code(String text) {
		return text.isEmpty() ? "" : "`" + cell(text) + "`";
	}

	private static String cell(String text) {
		return text.replace("|", "\\|");
	}

}
