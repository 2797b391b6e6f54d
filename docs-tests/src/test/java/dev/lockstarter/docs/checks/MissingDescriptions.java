package dev.lockstarter.docs.checks;

import java.util.List;

/**
 * Finds the configuration properties whose metadata has no description, which the
 * configuration processor takes from the Javadoc of the property's field.
 */
final class MissingDescriptions {

	private MissingDescriptions() {
	}

	/**
	 * The properties without a description.
	 * @param metadata the metadata
	 * @return one message per property, naming it and the class that declares it
	 */
	static List<String> of(ConfigurationMetadata metadata) {
		return metadata.properties()
			.stream()
			.filter((property) -> property.description().isBlank())
			.map((property) -> property.name()
					+ (property.sourceType().isEmpty() ? "" : " (declared by " + property.sourceType() + ")"))
			.toList();
	}

}
