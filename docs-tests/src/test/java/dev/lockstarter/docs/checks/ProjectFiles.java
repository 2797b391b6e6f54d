package dev.lockstarter.docs.checks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The project's root directory and the Markdown pages that the checks read: README.md,
 * CHANGELOG.md, each module's README.md and every page under docs/.
 */
final class ProjectFiles {

	private static final List<String> TOP_PAGES = List.of("README.md", "CHANGELOG.md");

	private final Path root;

	ProjectFiles(Path root) {
		this.root = root.toAbsolutePath().normalize();
	}

	/**
	 * The project this module belongs to: the directory named by the
	 * {@code docs.projectRoot} system property (the build sets it), else the nearest
	 * directory above the working directory that holds {@code mvnw} and {@code docs/}.
	 * @return the project's files
	 */
	static ProjectFiles current() {
		String configured = System.getProperty("docs.projectRoot");
		if (configured != null && !configured.isBlank()) {
			return new ProjectFiles(Path.of(configured));
		}
		for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isDirectory(dir.resolve("docs"))) {
				return new ProjectFiles(dir);
			}
		}
		throw new IllegalStateException("No project root (a directory with mvnw and docs/) above "
				+ Path.of("").toAbsolutePath() + "; set -Ddocs.projectRoot");
	}

	Path root() {
		return this.root;
	}

	/**
	 * The pages that exist: the top pages first, then the modules' README.md and docs/,
	 * each sorted by path.
	 * @return the pages
	 */
	List<MarkdownPage> pages() {
		List<MarkdownPage> pages = new ArrayList<>();
		for (String name : TOP_PAGES) {
			Path file = this.root.resolve(name);
			if (Files.isRegularFile(file)) {
				pages.add(MarkdownPage.read(this.root, file));
			}
		}
		try (Stream<Path> modules = Files.list(this.root)) {
			modules.map((module) -> module.resolve("README.md"))
				.filter(Files::isRegularFile)
				.filter((file) -> !file.getParent().getFileName().toString().equals("docs"))
				.sorted()
				.forEach((file) -> pages.add(MarkdownPage.read(this.root, file)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Path docs = this.root.resolve("docs");
		if (Files.isDirectory(docs)) {
			try (Stream<Path> files = Files.walk(docs)) {
				files.filter((file) -> file.toString().endsWith(".md"))
					.filter(Files::isRegularFile)
					.sorted()
					.forEach((file) -> pages.add(MarkdownPage.read(this.root, file)));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return pages;
	}

}
