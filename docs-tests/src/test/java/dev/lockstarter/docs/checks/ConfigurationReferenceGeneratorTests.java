package dev.lockstarter.docs.checks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ConfigurationReference}, {@link MissingDescriptions} and
 * {@link ReferenceDifference} on crafted metadata: the negative controls of
 * {@link ConfigurationReferenceTests}.
 */
class ConfigurationReferenceGeneratorTests {

	private static final String STARTER = """
			{
				"groups": [
					{ "name": "lock", "type": "example.LockProperties" },
					{ "name": "lock.redis", "type": "example.LockProperties$Redis" }
				],
				"properties": [
					{ "name": "lock.ttl", "type": "java.time.Duration", "defaultValue": "30s",
						"description": "Time-to-live of a lock.", "sourceType": "example.LockProperties" },
					{ "name": "lock.redis.timeout", "type": "java.time.Duration", "defaultValue": "2s",
						"sourceType": "example.LockProperties$Redis" },
					{ "name": "lock.headers", "type": "java.util.List<java.lang.String>",
						"defaultValue": ["Content-Type", "ETag"], "description": "Headers kept | replayed." },
					{ "name": "management.health.lockstore.enabled", "type": "java.lang.Boolean",
						"defaultValue": true, "description": "Whether to enable the lock store health check." }
				]
			}
			""";

	private static final String OTHER_LIBRARY = """
			{
				"groups": [ { "name": "server", "type": "example.ServerProperties" } ],
				"properties": [ { "name": "server.port", "type": "java.lang.Integer" } ]
			}
			""";

	private final ConfigurationMetadata metadata = ConfigurationMetadata.fromJson(STARTER, OTHER_LIBRARY);

	@Test
	void rendersOneSortedTablePerGroupFromTheLockMetadataOnly() {
		String page = ConfigurationReference.render(this.metadata);
		assertThat(page).startsWith("# Configuration reference\n\n")
			.contains(ConfigurationReference.REGENERATE)
			.doesNotContain("server.port")
			.contains("""
					## lock

					| Property | Type | Default | Description |
					|---|---|---|---|
					| `lock.headers` | `List<String>` | `Content-Type`, `ETag` | Headers kept \\| replayed. |
					| `lock.ttl` | `Duration` | `30s` | Time-to-live of a lock. |

					## lock.redis

					| Property | Type | Default | Description |
					|---|---|---|---|
					| `lock.redis.timeout` | `Duration` | `2s` |  |

					## management.health.lockstore
					""");
	}

	@Test
	void valueHintListsTheValuesInPlaceOfTheEnumsConstants() {
		ConfigurationMetadata hinted = ConfigurationMetadata.fromJson("""
				{
					"properties": [
						{ "name": "lock.on-lease-lost", "type": "dev.lockstarter.annotation.OnLeaseLost",
							"defaultValue": "report", "description": "What a lost lease does." },
						{ "name": "lock.other", "type": "dev.lockstarter.annotation.OnLeaseLost",
							"description": "Another." }
					],
					"hints": [
						{ "name": "lock.on-lease-lost", "values": [ { "value": "report" }, { "value": "cancel" } ] }
					]
				}
				""");
		assertThat(ConfigurationReference.render(hinted))
			.contains(
					"| `lock.on-lease-lost` | `OnLeaseLost`: `report`, `cancel` | `report` | What a lost lease does. |")
			.contains("| `lock.other` | `OnLeaseLost`: `default`, `report`, `cancel` |  | Another. |");
	}

	@Test
	void propertyWithoutDescriptionIsReported() {
		assertThat(MissingDescriptions.of(this.metadata))
			.containsExactly("lock.redis.timeout (declared by example.LockProperties$Redis)");
	}

	@Test
	void differenceNamesMissingAndExtraProperties() {
		String generated = ConfigurationReference.render(this.metadata);
		String committed = generated.replace("| `lock.ttl` |", "| `lock.time-to-live` |");
		assertThat(ReferenceDifference.describe(committed, generated)).isEqualTo("""
				docs/configuration-reference.md is out of date.
				Missing from the page: lock.ttl
				In the page but not in the metadata: lock.time-to-live""");
	}

	@Test
	void differenceOtherThanPropertiesNamesTheFirstDifferentLine() {
		String generated = ConfigurationReference.render(this.metadata);
		String committed = generated.replace("Time-to-live of a lock.", "How long a lock lives.");
		assertThat(ReferenceDifference.describe(committed, generated))
			.startsWith("docs/configuration-reference.md is out of date.\nSame properties; line ")
			.contains("  generated: | `lock.ttl` | `Duration` | `30s` | Time-to-live of a lock. |\n"
					+ "  in page:   | `lock.ttl` | `Duration` | `30s` | How long a lock lives. |");
	}

}
