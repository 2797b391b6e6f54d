package dev.lockstarter.docs.checks;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.lockstarter.docs.checks.MarkdownPage.NumberedLine;

/**
 * The links of a page that point into the project: inline links and images
 * ({@code [text](path#anchor)}, {@code [text](#anchor)}) and reference definitions
 * ({@code [label]: path}) outside code blocks and code spans. Links with a scheme
 * ({@code https:}, {@code mailto:}, ...) are left out.
 */
final class MarkdownLinks {

	private static final Pattern CODE_SPAN = Pattern.compile("(`+)(?:(?!\\1).)+?\\1");

	private static final Pattern INLINE = Pattern.compile("\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)");

	private static final Pattern DEFINITION = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s+.*)?$");

	private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:.*");

	private MarkdownLinks() {
	}

	/**
	 * The project links of a page.
	 * @param page the page
	 * @return its links, in page order
	 */
	static List<Link> of(MarkdownPage page) {
		List<Link> links = new ArrayList<>();
		for (NumberedLine line : page.proseLines()) {
			String text = CODE_SPAN.matcher(line.text()).replaceAll("");
			Matcher inline = INLINE.matcher(text);
			while (inline.find()) {
				add(links, line.number(), inline.group(1));
			}
			Matcher definition = DEFINITION.matcher(text);
			if (definition.matches()) {
				add(links, line.number(), definition.group(1));
			}
		}
		return links;
	}

	private static void add(List<Link> links, int line, String target) {
		if (!target.isEmpty() && !SCHEME.matcher(target).matches()) {
			links.add(new Link(line, target));
		}
	}

	/**
	 * A link into the project.
	 *
	 * @param line the line it is on (1-based)
	 * @param target its target, such as {@code ../stores.md#redis} or {@code #usage}
	 */
	record Link(int line, String target) {

		String path() {
			int hash = this.target.indexOf('#');
			return (hash >= 0) ? this.target.substring(0, hash) : this.target;
		}

		String anchor() {
			int hash = this.target.indexOf('#');
			return (hash >= 0) ? this.target.substring(hash + 1) : "";
		}

	}

}
