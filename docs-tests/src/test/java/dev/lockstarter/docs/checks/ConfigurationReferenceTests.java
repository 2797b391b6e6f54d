package dev.lockstarter.docs.checks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import dev.lockstarter.docs.checks.ConfigurationMetadata.Property;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * docs/configuration-reference.md lists every property of the configuration metadata of
 * lock-spring-boot-autoconfigure and lock-server, each with a description. With
 * {@code -Ddocs.regenerate=true} the page is rewritten instead of compared.
 */
class ConfigurationReferenceTests {

	private final ConfigurationMetadata metadata = ConfigurationMetadata.fromClassPath();

	private final Path page = ProjectFiles.current().root().resolve(ConfigurationReference.PAGE);

	@Test
	void metadataHasTheStarterAndTheLockServer() {
		assertThat(this.metadata.properties()).extracting(Property::name).contains("lock.ttl", "lock.server.max-ttl");
	}

	@Test
	void everyPropertyHasADescription() {
		Problems.assertNone(MissingDescriptions.of(this.metadata),
				"configuration propert(ies) without a description (add Javadoc to the field)");
	}

	@Test
	void pageEqualsTheGeneratedReference() throws IOException {
		String generated = ConfigurationReference.render(this.metadata);
		if (Boolean.getBoolean("docs.regenerate")) {
			Files.writeString(this.page, generated, StandardCharsets.UTF_8);
			return;
		}
		String committed = Files.exists(this.page) ? Files.readString(this.page, StandardCharsets.UTF_8) : "";
		if (!committed.equals(generated)) {
			fail(ReferenceDifference.describe(committed, generated) + "\nRegenerate the page with: "
					+ ConfigurationReference.REGENERATE);
		}
	}

}
