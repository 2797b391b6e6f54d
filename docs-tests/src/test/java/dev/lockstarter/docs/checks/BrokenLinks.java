package dev.lockstarter.docs.checks;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.lockstarter.docs.checks.MarkdownLinks.Link;

/**
 * Finds the links of the pages ({@link MarkdownLinks}) whose file or directory does not
 * exist, or whose anchor is not a heading or an {@code <a id>} of the Markdown page it
 * names ({@link HeadingAnchors}). A path starting with {@code /} is relative to the project
 * root, any other to the page's directory.
 */
final class BrokenLinks {

	private final ProjectFiles project;

	private final Map<Path, Set<String>> anchors = new HashMap<>();

	BrokenLinks(ProjectFiles project) {
		this.project = project;
	}

	/**
	 * The broken links.
	 * @return one message per broken link, naming its page and line; empty when all resolve
	 */
	List<String> problems() {
		List<String> problems = new ArrayList<>();
		for (MarkdownPage page : this.project.pages()) {
			Path pageFile = this.project.root().resolve(page.name());
			for (Link link : MarkdownLinks.of(page)) {
				String problem = check(pageFile, link);
				if (problem != null) {
					problems.add(page.name() + ":" + link.line() + ": (" + link.target() + ") " + problem);
				}
			}
		}
		return problems;
	}

	private String check(Path pageFile, Link link) {
		String path = URLDecoder.decode(link.path().replace("+", "%2B"), StandardCharsets.UTF_8);
		Path root = this.project.root();
		Path target = path.isEmpty() ? pageFile
				: (path.startsWith("/") ? root.resolve(path.substring(1)) : pageFile.getParent().resolve(path))
					.normalize();
		if (!target.startsWith(root)) {
			return "points outside the project";
		}
		if (!Files.exists(target)) {
			return "no file or directory " + root.relativize(target).toString().replace('\\', '/');
		}
		String anchor = URLDecoder.decode(link.anchor(), StandardCharsets.UTF_8);
		if (anchor.isEmpty() || !target.toString().endsWith(".md") || Files.isDirectory(target)) {
			return null;
		}
		Set<String> targetAnchors = this.anchors.computeIfAbsent(target,
				(file) -> HeadingAnchors.of(MarkdownPage.read(root, file)));
		if (targetAnchors.contains(anchor)) {
			return null;
		}
		return "no heading or anchor '" + anchor + "' in " + root.relativize(target).toString().replace('\\', '/');
	}

}
