package dev.lockstarter.docs.checks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.lockstarter.docs.checks.StoreFacts.Fact;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link StoreLists} and {@link StoreTableDifference} on crafted pages: the
 * negative controls of {@link StoreFactsTests}.
 */
class StoreListsTests {

	private final StoreFacts facts = StoreFacts.ofBuiltInStores();

	private final StoreLists lists = new StoreLists(this.facts);

	@Test
	void listThatNamesTheTablesStoresPasses() {
		MarkdownPage page = page("Both need <!-- stores: shared-locks -->[Redis](stores/redis.md), JDBC and the",
				"in-memory store<!-- end stores -->; <!-- stores: not shared-locks -->Memcached, DynamoDB, etcd",
				"and ZooKeeper<!-- end stores --> keep mutexes only.");
		assertThat(this.lists.problems(List.of(page), Map.of("docs/kinds.md", List.of("shared-locks")))).isEmpty();
	}

	@Test
	void listThatMissesAStoreNamesItAndTheLine() {
		MarkdownPage page = page("# Kinds", "",
				"<!-- stores: not shared-locks -->Memcached and DynamoDB<!-- end stores --> keep mutexes only.");
		assertThat(this.lists.problems(List.of(page), Map.of())).containsExactly(
				"docs/kinds.md:3: the stores that lack shared-locks are listed as [Memcached, DynamoDB], but the "
						+ "table of docs/stores.md gives [Memcached, DynamoDB, etcd, ZooKeeper]; missing: etcd, ZooKeeper");
	}

	@Test
	void redisClusterIsOneRowAndRedisBothOfThem() {
		assertThat(this.lists.storesNamedIn("Redis on one server or Sentinel, in memory, etcd"))
			.containsExactly("Redis", "in-memory", "etcd");
		assertThat(this.lists.storesNamedIn("Redis Cluster and [ZooKeeper](stores/zookeeper.md)"))
			.containsExactly("Redis Cluster", "ZooKeeper");
		assertThat(this.lists.storesNamedIn("Redis (one server, Sentinel, Cluster), PostgreSQL"))
			.containsExactly("Redis", "Redis Cluster", "JDBC on PostgreSQL");
		MarkdownPage page = page(
				"<!-- stores: atomic-multi-key -->Redis, in-memory, etcd, ZooKeeper<!-- end stores -->");
		assertThat(this.lists.problems(List.of(page), Map.of())).singleElement()
			.asString()
			.endsWith("not to be listed: Redis Cluster");
	}

	@Test
	void jdbcIsBothRowsAndEachDatabaseItsOwn() {
		assertThat(this.lists.storesNamedIn("[JDBC](stores/jdbc.md)")).containsExactly("JDBC on PostgreSQL",
				"JDBC on MariaDB and H2");
		assertThat(this.lists.storesNamedIn("PostgreSQL")).containsExactly("JDBC on PostgreSQL");
		assertThat(this.lists.storesNamedIn("JDBC on PostgreSQL")).containsExactly("JDBC on PostgreSQL");
		assertThat(this.lists.storesNamedIn("MariaDB, H2")).containsExactly("JDBC on MariaDB and H2");
		assertThat(this.lists.storesNamedIn("JDBC on MariaDB and H2")).containsExactly("JDBC on MariaDB and H2");
		assertThat(this.lists.storesNamedIn("JDBC on H2")).containsExactly("JDBC on MariaDB and H2");
		assertThat(this.lists.storesNamedIn("the JDBC store on PostgreSQL")).containsExactly("JDBC on PostgreSQL");
	}

	@Test
	void jdbcListedAsPollingIsWrongOnPostgreSql() {
		MarkdownPage stale = page(
				"<!-- stores: not release-notifications -->Memcached, DynamoDB and JDBC<!-- end stores --> poll.");
		assertThat(this.lists.problems(List.of(stale), Map.of())).singleElement()
			.asString()
			.endsWith("not to be listed: JDBC on PostgreSQL");
		MarkdownPage right = page(
				"<!-- stores: not release-notifications -->Memcached, DynamoDB, and JDBC on MariaDB and H2<!-- end stores -->",
				"poll; <!-- stores: release-notifications -->Redis, in-memory, PostgreSQL, etcd and ZooKeeper<!-- end stores -->",
				"announce releases.");
		assertThat(this.lists.problems(List.of(right), Map.of())).isEmpty();
	}

	@Test
	void unknownFactUnclosedMarkAndMissingMarkAreReported() {
		MarkdownPage page = page("<!-- stores: permits -->Redis<!-- end stores -->",
				"<!-- stores: contender-clock -->Memcached, DynamoDB, etcd, ZooKeeper");
		assertThat(this.lists.problems(List.of(page), Map.of("docs/kinds.md", List.of("not fencing-tokens"))))
			.containsExactly(
					"docs/kinds.md:1: unknown fact 'permits' in a <!-- stores: ... --> mark; known: " + Fact.keys(),
					"docs/kinds.md:2: a <!-- stores: ... --> mark without its <!-- end stores -->, or malformed",
					"docs/kinds.md: no list of stores marked <!-- stores: not fencing-tokens -->; the page names the "
							+ "stores that lack fencing-tokens: mark that list");
	}

	@Test
	void marksInCodeAreNotLists() {
		MarkdownPage page = page("```markdown", "<!-- stores: shared-locks -->Memcached<!-- end stores -->", "```",
				"A list is marked `<!-- stores: fact -->` and `<!-- stores: shared-locks -->Memcached<!-- end stores -->`.");
		assertThat(this.lists.problems(List.of(page), Map.of())).isEmpty();
	}

	@Test
	void tableDifferenceNamesTheFirstDifferentLine() {
		List<String> generated = this.facts.render();
		List<String> lines = new ArrayList<>(List.of("# Lock stores", "", StoreFacts.START));
		lines.addAll(generated);
		lines.add(StoreFacts.END);
		assertThat(StoreTableDifference.describe(lines, generated)).isEmpty();
		lines.set(8, lines.get(8).replace("| no: mutexes only |", "| yes |"));
		assertThat(StoreTableDifference.describe(lines, generated)).hasValueSatisfying((message) -> assertThat(message)
			.startsWith("docs/stores.md: the store table differs from the one built from the store classes at line 9.")
			.contains("  in page:   | [Memcached]")
			.endsWith("Regenerate it with: " + ConfigurationReference.REGENERATE));
		assertThat(StoreTableDifference.describe(List.of("# Lock stores"), generated))
			.hasValueSatisfying((message) -> assertThat(message).startsWith("docs/stores.md has no store table"));
	}

	private static MarkdownPage page(String... lines) {
		return new MarkdownPage("docs/kinds.md", List.of(lines));
	}

}
