package dev.lockstarter.docs.checks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The lines of a source file between {@code // tag::name[]} and {@code // end::name[]}, each
 * on a line of its own. Tag lines inside the region (of other, nested regions) are dropped,
 * and the lines' common leading whitespace is removed.
 */
final class TaggedRegion {

	private static final Pattern ANY_TAG = Pattern.compile("^\\s*(//|#)\\s*(tag|end)::[^\\[]*\\[\\]\\s*$");

	private TaggedRegion() {
	}

	/**
	 * Reads a region.
	 * @param file the source file
	 * @param tag the region's name
	 * @return the region's lines, or empty when the file has no such region
	 */
	static Optional<List<String>> read(Path file, String tag) {
		List<String> lines;
		try {
			lines = Files.readAllLines(file, StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		int start = indexOf(lines, "tag", tag, 0);
		int end = (start >= 0) ? indexOf(lines, "end", tag, start + 1) : -1;
		if (end < 0) {
			return Optional.empty();
		}
		List<String> region = new ArrayList<>();
		for (String line : lines.subList(start + 1, end)) {
			if (!ANY_TAG.matcher(line).matches()) {
				region.add(line);
			}
		}
		return Optional.of(Lines.outdent(region));
	}

	private static int indexOf(List<String> lines, String kind, String tag, int from) {
		Pattern marker = Pattern.compile("^\\s*(//|#)\\s*" + kind + "::" + Pattern.quote(tag) + "\\[\\]\\s*$");
		for (int index = from; index < lines.size(); index++) {
			if (marker.matcher(lines.get(index)).matches()) {
				return index;
			}
		}
		return -1;
	}

}
