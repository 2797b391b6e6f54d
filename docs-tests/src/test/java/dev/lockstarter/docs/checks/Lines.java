package dev.lockstarter.docs.checks;

import java.util.List;

/**
 * Text helpers shared by the checks.
 */
final class Lines {

	private Lines() {
	}

	/**
	 * Removes the leading whitespace that every non-blank line shares (tabs and spaces are
	 * compared as they are) and the trailing whitespace of every line.
	 * @param lines the lines
	 * @return the outdented lines
	 */
	static List<String> outdent(List<String> lines) {
		String common = null;
		for (String line : lines) {
			if (line.isBlank()) {
				continue;
			}
			String indent = line.substring(0, line.length() - line.stripLeading().length());
			common = (common != null) ? commonPrefix(common, indent) : indent;
		}
		int strip = (common != null) ? common.length() : 0;
		return lines.stream().map((line) -> line.isBlank() ? "" : line.substring(strip).stripTrailing()).toList();
	}

	/**
	 * Trailing whitespace removed from every line, for comparisons that editors should not
	 * break.
	 * @param lines the lines
	 * @return the lines without trailing whitespace
	 */
	static List<String> stripTrailing(List<String> lines) {
		return lines.stream().map(String::stripTrailing).toList();
	}

	/**
	 * The lines as text, each with a tab-visible prefix, for a failure message.
	 * @param lines the lines
	 * @return the text
	 */
	static String show(List<String> lines) {
		StringBuilder text = new StringBuilder();
		for (String line : lines) {
			text.append("\t|").append(line).append('\n');
		}
		return text.toString();
	}

	private static String commonPrefix(String first, String second) {
		int length = 0;
		while (length < first.length() && length < second.length() && first.charAt(length) == second.charAt(length)) {
			length++;
		}
		return first.substring(0, length);
	}

}
