package dev.lockstarter.docs.checks;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import dev.lockstarter.docs.checks.MarkdownPage.FencedBlock;

/**
 * Finds Java and Kotlin code blocks of README.md and docs/ that no snippet marker ties to
 * compiled source. Blocks under docs/migration/ and docs/adapters/ may instead follow a
 * {@code <!-- peer -->} line: they show a peer library's code, which this build does not
 * compile.
 */
final class UnmarkedExamples {

	private static final Set<String> LANGUAGES = Set.of("java", "kotlin", "kt");

	private static final String PEER = "<!-- peer -->";

	private final ProjectFiles project;

	UnmarkedExamples(ProjectFiles project) {
		this.project = project;
	}

	/**
	 * The unmarked Java and Kotlin blocks.
	 * @return one message per block, naming its page and line; empty when there are none
	 */
	List<String> problems() {
		List<String> problems = new ArrayList<>();
		for (MarkdownPage page : this.project.pages()) {
			if (!page.name().equals("README.md") && !page.name().startsWith("docs/")) {
				continue;
			}
			for (FencedBlock block : page.fencedBlocks()) {
				if (LANGUAGES.contains(block.language().toLowerCase()) && !isMarked(page, block)) {
					problems.add(page.name() + ":" + block.line() + ": a ```" + block.language()
							+ " block without a '<!-- snippet: path#tag -->' line right before it" + hint(page));
				}
			}
		}
		return problems;
	}

	private static boolean isMarked(MarkdownPage page, FencedBlock block) {
		String before = page.lineBefore(block.line());
		return SnippetMarkers.MARKER_START.matcher(before).matches()
				|| (isMigrationPage(page) && before.strip().equals(PEER));
	}

	private static String hint(MarkdownPage page) {
		return isMigrationPage(page) ? " (or '" + PEER + "' for a peer library's code)" : "";
	}

	private static boolean isMigrationPage(MarkdownPage page) {
		return page.name().startsWith("docs/migration/") || page.name().startsWith("docs/adapters/");
	}

}
