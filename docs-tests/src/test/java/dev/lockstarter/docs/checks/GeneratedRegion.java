package dev.lockstarter.docs.checks;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The lines of a page that a check generates, between a start marker and an end marker,
 * each a line of its own. The rest of the page is written by hand.
 *
 * @param start the index of the start marker's line
 * @param end the index of the end marker's line, after the start
 */
record GeneratedRegion(int start, int end) {

	/**
	 * Find the region of a page.
	 * @param lines the page's lines
	 * @param startMarker the start marker line
	 * @param endMarker the end marker line
	 * @return the region, or empty when either marker is missing or the end comes first
	 */
	static Optional<GeneratedRegion> find(List<String> lines, String startMarker, String endMarker) {
		int start = indexOf(lines, startMarker, 0);
		int end = (start >= 0) ? indexOf(lines, endMarker, start + 1) : -1;
		return (end >= 0) ? Optional.of(new GeneratedRegion(start, end)) : Optional.empty();
	}

	/**
	 * The lines between the markers, without trailing whitespace.
	 * @param lines the page's lines
	 * @return the region's content
	 */
	List<String> content(List<String> lines) {
		return Lines.stripTrailing(lines.subList(this.start + 1, this.end));
	}

	/**
	 * The page with new lines between the markers.
	 * @param lines the page's lines
	 * @param content the new content
	 * @return the page's new lines
	 */
	List<String> replace(List<String> lines, List<String> content) {
		List<String> replaced = new ArrayList<>(lines.subList(0, this.start + 1));
		replaced.addAll(content);
		replaced.addAll(lines.subList(this.end, lines.size()));
		return replaced;
	}

	private static int indexOf(List<String> lines, String marker, int from) {
		for (int index = from; index < lines.size(); index++) {
			if (lines.get(index).strip().equals(marker)) {
				return index;
			}
		}
		return -1;
	}

}
