package dev.lockstarter.docs.checks;

import org.junit.jupiter.api.Test;

/**
 * The guide's Java and Kotlin examples are compiled source: each block under a snippet
 * marker equals its tagged region, and no Java or Kotlin block of README.md or docs/ lacks
 * a marker. See docs-tests/README.md.
 */
class SnippetTests {

	private final ProjectFiles project = ProjectFiles.current();

	@Test
	void everyMarkedBlockEqualsItsSourceRegion() {
		Problems.assertNone(new SnippetMarkers(this.project).problems(),
				"snippet(s) differ from their source or name a missing file or region");
	}

	@Test
	void everyJavaAndKotlinBlockHasASnippetMarker() {
		Problems.assertNone(new UnmarkedExamples(this.project).problems(),
				"Java or Kotlin block(s) not tied to compiled source: put the example in docs-tests/src/test/"
						+ "(java|kotlin)/dev/lockstarter/docs/<page>/, mark its region with // tag::name[] and "
						+ "// end::name[], and put <!-- snippet: path#name --> right before the block");
	}

}
