package dev.lockstarter.docs.checks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.lockstarter.docs.checks.MarkdownPage.FencedBlock;
import dev.lockstarter.docs.checks.MarkdownPage.NumberedLine;

/**
 * Checks the snippet markers of the pages: every line
 * {@code <!-- snippet: path/to/Source.java#tag -->} must be followed directly by a fenced
 * code block whose lines equal the source's region {@code tag} ({@link TaggedRegion}), the
 * path being relative to the project root.
 */
final class SnippetMarkers {

	static final Pattern MARKER_START = Pattern.compile("^\\s*<!--\\s*snippet:.*");

	private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*snippet:\\s*([^#\\s]+)#(\\S+)\\s*-->\\s*$");

	private final ProjectFiles project;

	SnippetMarkers(ProjectFiles project) {
		this.project = project;
	}

	/**
	 * Every marker that is malformed, names a file or region that does not exist, is not
	 * followed by a code block, or whose block differs from its region.
	 * @return one message per problem, naming the page and line; empty when all hold
	 */
	List<String> problems() {
		List<String> problems = new ArrayList<>();
		for (MarkdownPage page : this.project.pages()) {
			for (NumberedLine line : page.proseLines()) {
				if (MARKER_START.matcher(line.text()).matches()) {
					check(page, line).ifPresent(problems::add);
				}
			}
		}
		return problems;
	}

	private Optional<String> check(MarkdownPage page, NumberedLine line) {
		String where = page.name() + ":" + line.number() + ": ";
		Matcher marker = MARKER.matcher(line.text());
		if (!marker.matches()) {
			return Optional.of(where + "malformed snippet marker '" + line.text().strip()
					+ "'; expected <!-- snippet: path/to/Source.java#tag -->");
		}
		String source = marker.group(1);
		String tag = marker.group(2);
		Optional<FencedBlock> block = page.fencedBlocks()
			.stream()
			.filter((candidate) -> candidate.line() == line.number() + 1)
			.findFirst();
		if (block.isEmpty()) {
			return Optional.of(where + "the snippet marker for " + source + "#" + tag
					+ " is not followed directly by a fenced code block");
		}
		Path file = this.project.root().resolve(source).normalize();
		if (!Files.isRegularFile(file)) {
			return Optional.of(where + "the snippet marker names " + source + ", which does not exist");
		}
		Optional<List<String>> region = TaggedRegion.read(file, tag);
		if (region.isEmpty()) {
			return Optional.of(where + "the snippet marker names the region '" + tag + "', but " + source
					+ " has no '// tag::" + tag + "[]' ... '// end::" + tag + "[]'");
		}
		List<String> expected = region.get();
		List<String> actual = Lines.stripTrailing(block.get().content());
		if (expected.equals(actual)) {
			return Optional.empty();
		}
		return Optional.of(where + "the code block differs from " + source + "#" + tag + " at block line "
				+ (firstDifference(expected, actual) + 1) + ".\n  expected (the source region):\n"
				+ Lines.show(expected) + "  actual (the page):\n" + Lines.show(actual));
	}

	private static int firstDifference(List<String> expected, List<String> actual) {
		int index = 0;
		while (index < expected.size() && index < actual.size() && expected.get(index).equals(actual.get(index))) {
			index++;
		}
		return index;
	}

}
