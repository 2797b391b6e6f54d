package dev.lockstarter.docs.checks;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.lockstarter.docs.checks.MarkdownPage.NumberedLine;

/**
 * The anchors a page offers, as GitHub renders it: one per heading (its text lower-cased,
 * punctuation other than {@code -} and {@code _} dropped, each space turned into {@code -},
 * a repeated heading suffixed {@code -1}, {@code -2}, ...), and one per
 * {@code <a id="...">} or {@code <a name="...">}.
 */
final class HeadingAnchors {

	private static final Pattern ATX_HEADING = Pattern.compile("^ {0,3}#{1,6}\\s+(.*?)(\\s+#+)?\\s*$");

	private static final Pattern SETEXT_UNDERLINE = Pattern.compile("^ {0,3}(=+|-+)\\s*$");

	private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s[^>]*?\\b(?:id|name)\\s*=\\s*[\"']([^\"']+)[\"']");

	private static final Pattern LINK = Pattern.compile("!?\\[([^\\]]*)\\]\\([^)]*\\)");

	private static final Pattern HTML_TAG = Pattern.compile("<[^>]+>");

	private HeadingAnchors() {
	}

	/**
	 * The anchors of a page.
	 * @param page the page
	 * @return its anchors, in page order
	 */
	static Set<String> of(MarkdownPage page) {
		Set<String> anchors = new LinkedHashSet<>();
		Map<String, Integer> seen = new HashMap<>();
		List<NumberedLine> prose = page.proseLines();
		for (int index = 0; index < prose.size(); index++) {
			NumberedLine line = prose.get(index);
			Matcher html = HTML_ANCHOR.matcher(line.text());
			while (html.find()) {
				anchors.add(html.group(1));
			}
			String heading = headingText(prose, index);
			if (heading != null) {
				String slug = slug(heading);
				int count = seen.merge(slug, 1, Integer::sum);
				anchors.add((count == 1) ? slug : slug + "-" + (count - 1));
			}
		}
		return anchors;
	}

	/**
	 * GitHub's anchor for a heading.
	 * @param heading the heading's Markdown text
	 * @return the anchor
	 */
	static String slug(String heading) {
		String text = LINK.matcher(heading).replaceAll("$1");
		text = HTML_TAG.matcher(text).replaceAll("");
		text = text.replace("`", "").replace("**", "").replace("\\", "");
		StringBuilder slug = new StringBuilder();
		text.toLowerCase().codePoints().forEach((c) -> {
			if (c == ' ') {
				slug.append('-');
			}
			else if (Character.isLetterOrDigit(c) || c == '-' || c == '_'
					|| Character.getType(c) == Character.NON_SPACING_MARK) {
				slug.appendCodePoint(c);
			}
		});
		return slug.toString();
	}

	private static String headingText(List<NumberedLine> prose, int index) {
		String text = prose.get(index).text();
		Matcher atx = ATX_HEADING.matcher(text);
		if (atx.matches()) {
			return atx.group(1);
		}
		boolean nextIsUnderline = index + 1 < prose.size()
				&& prose.get(index + 1).number() == prose.get(index).number() + 1
				&& SETEXT_UNDERLINE.matcher(prose.get(index + 1).text()).matches();
		boolean isParagraphLine = !text.isBlank() && !text.contains("|") && !text.strip().startsWith("<")
				&& !text.strip().startsWith("-") && !text.strip().startsWith("*");
		return (nextIsUnderline && isParagraphLine) ? text.strip() : null;
	}

}
