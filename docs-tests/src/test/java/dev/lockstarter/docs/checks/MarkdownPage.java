package dev.lockstarter.docs.checks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Markdown page split into its fenced code blocks and the lines outside them.
 *
 * @param name the page's path relative to the project root, with forward slashes
 * @param lines the page's lines
 */
record MarkdownPage(String name, List<String> lines) {

	private static final Pattern FENCE = Pattern.compile("^( *)(`{3,}(?=[^`]*$)|~{3,})\\s*(\\S*).*$");

	static MarkdownPage read(Path root, Path file) {
		try {
			String name = root.relativize(file).toString().replace('\\', '/');
			return new MarkdownPage(name, Files.readAllLines(file, StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The fenced code blocks, in page order.
	 * @return the blocks
	 */
	List<FencedBlock> fencedBlocks() {
		List<FencedBlock> blocks = new ArrayList<>();
		int index = 0;
		while (index < this.lines.size()) {
			Matcher opening = FENCE.matcher(this.lines.get(index));
			if (!opening.matches()) {
				index++;
				continue;
			}
			int indent = opening.group(1).length();
			String fence = opening.group(2);
			List<String> content = new ArrayList<>();
			int end = index + 1;
			while (end < this.lines.size() && !isClosing(this.lines.get(end), fence)) {
				content.add(stripIndent(this.lines.get(end), indent));
				end++;
			}
			blocks.add(new FencedBlock(index + 1, opening.group(3), content));
			index = end + 1;
		}
		return blocks;
	}

	/**
	 * The lines outside fenced code blocks, with their line numbers (1-based).
	 * @return the prose lines
	 */
	List<NumberedLine> proseLines() {
		List<NumberedLine> prose = new ArrayList<>();
		int next = 0;
		for (FencedBlock block : fencedBlocks()) {
			for (int index = next; index < block.line() - 1; index++) {
				prose.add(new NumberedLine(index + 1, this.lines.get(index)));
			}
			next = block.line() + block.content().size() + 1;
		}
		for (int index = next; index < this.lines.size(); index++) {
			prose.add(new NumberedLine(index + 1, this.lines.get(index)));
		}
		return prose;
	}

	/**
	 * The line before the given one, or an empty string for the first line.
	 * @param line a line number (1-based)
	 * @return the line before it
	 */
	String lineBefore(int line) {
		return (line >= 2) ? this.lines.get(line - 2) : "";
	}

	private static boolean isClosing(String line, String fence) {
		String trimmed = line.strip();
		return trimmed.length() >= fence.length() && trimmed.chars().allMatch((c) -> c == fence.charAt(0));
	}

	private static String stripIndent(String line, int indent) {
		int strip = 0;
		while (strip < indent && strip < line.length() && line.charAt(strip) == ' ') {
			strip++;
		}
		return line.substring(strip);
	}

	/**
	 * A fenced code block.
	 *
	 * @param line the line number of its opening fence (1-based)
	 * @param language the first word of its info string, empty when it has none
	 * @param content its lines, without the fences
	 */
	record FencedBlock(int line, String language, List<String> content) {

	}

	/**
	 * A line of a page with its number.
	 *
	 * @param number the line number (1-based)
	 * @param text the line
	 */
	record NumberedLine(int number, String text) {

	}

}
