package dev.lockstarter.docs.checks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import dev.lockstarter.docs.checks.StoreFacts.Fact;
import dev.lockstarter.store.memory.InMemoryLockStore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The table of what each store can do, in docs/stores.md, is the one built from the store
 * classes ({@link StoreFacts}), and every list of stores that another page repeats from
 * it, marked {@code <!-- stores: fact -->}, names the stores the table gives
 * ({@link StoreLists}). With {@code -Ddocs.regenerate=true} the table is rewritten
 * instead of compared.
 */
class StoreFactsTests {

	/**
	 * The lists of stores that each page must mark, because it repeats them: a mark that
	 * disappears would let its list go stale unnoticed.
	 */
	private static final Map<String, List<String>> REQUIRED_MARKS = Map.of(
			// which stores take permits and read/write locks, and which do not
			"docs/lock-kinds.md", List.of("shared-locks", "not shared-locks"),
			// the permits attribute, and the stores that take several keys at once
			"docs/annotations-and-keys.md", List.of("shared-locks", "atomic-multi-key", "not multi-key-store"),
			// whose clock counts a job's lock
			"docs/scheduled-jobs.md", List.of("contender-clock"), "docs/idempotent-requests.md",
			List.of("stored-results"), "docs/single-flight.md", List.of("stored-results", "not release-notifications"),
			"docs/waiting-renewal-fencing.md", List.of("not fencing-tokens", "contender-clock"), "docs/stores.md",
			List.of("contender-clock"),
			// the stores whose holders the locks endpoint lists and frees
			"docs/production.md", List.of("holders-listed", "not holders-listed"));

	private final StoreFacts facts = StoreFacts.ofBuiltInStores();

	private final ProjectFiles project = ProjectFiles.current();

	@Test
	void everyStoreOnTheClassPathHasARow() {
		assertThat(this.facts.storeClassesWithoutARow())
			.as("LockStore classes under %s without a row in StoreFacts", StoreFacts.STORE_PACKAGE)
			.isEmpty();
	}

	@Test
	void declarationsAgreeWithTheStoreClasses() {
		Problems.assertNone(this.facts.declarationProblems(),
				"declaration(s) of StoreFacts that the classes contradict");
	}

	@Test
	void inMemoryStoreReturnsTheFencingTokenThatItIsDeclaredToReturn() {
		InMemoryLockStore store = new InMemoryLockStore();
		assertThat(this.facts.storesWith(Fact.FENCING_TOKENS, true)).contains("in-memory");
		assertThat(store.tryAcquire("fencing", "owner", Duration.ofSeconds(10)).fencingToken()).isPositive();
	}

	@Test
	void jdbcOnPostgreSqlAnnouncesReleasesAndHasEveryOtherFactOfJdbcElsewhere() {
		assertThat(this.facts.storesWith(Fact.RELEASE_NOTIFICATIONS, true)).contains("JDBC on PostgreSQL")
			.doesNotContain("JDBC on MariaDB and H2");
		List<String> postgreSql = cells("| [JDBC](stores/jdbc.md) on PostgreSQL |");
		List<String> others = cells("| [JDBC](stores/jdbc.md) on MariaDB, H2 |");
		int release = cells("| store |").indexOf("release notifications");
		assertThat(postgreSql.get(release)).isEqualTo("yes");
		assertThat(others.get(release)).isEqualTo("no: waiters poll");
		for (int column = 1; column < postgreSql.size(); column++) {
			if (column != release) {
				assertThat(postgreSql.get(column)).as("column %d", column).isEqualTo(others.get(column));
			}
		}
		assertThat(others).contains("the database server's");
	}

	/** The cells of the rendered table's line that starts with a prefix. */
	private List<String> cells(String prefix) {
		String line = this.facts.render()
			.stream()
			.filter((candidate) -> candidate.startsWith(prefix))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no line of the table starts with " + prefix));
		return List.of(line.substring(2, line.length() - 2).split(" \\| "));
	}

	@Test
	void tableOfTheStoresPageIsTheOneBuiltFromTheStoreClasses() throws IOException {
		Path page = this.project.root().resolve(StoreFacts.PAGE);
		List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
		List<String> generated = this.facts.render();
		if (Boolean.getBoolean("docs.regenerate")) {
			GeneratedRegion region = GeneratedRegion.find(lines, StoreFacts.START, StoreFacts.END)
				.orElseThrow(() -> new IllegalStateException(StoreFacts.PAGE + " has no line " + StoreFacts.START
						+ " followed by a line " + StoreFacts.END));
			Files.write(page, region.replace(lines, generated), StandardCharsets.UTF_8);
			return;
		}
		Optional<String> difference = StoreTableDifference.describe(lines, generated);
		difference.ifPresent((message) -> fail(message));
	}

	@Test
	void everyMarkedListOfStoresNamesTheStoresOfTheTable() {
		Problems.assertNone(new StoreLists(this.facts).problems(this.project.pages(), REQUIRED_MARKS),
				"list(s) of stores that disagree with the store table of " + StoreFacts.PAGE
						+ " (built from the store classes)");
	}

}
