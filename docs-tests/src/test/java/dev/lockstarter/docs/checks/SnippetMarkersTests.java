package dev.lockstarter.docs.checks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link SnippetMarkers} and {@link UnmarkedExamples} on crafted pages: the
 * negative controls of {@link SnippetTests}.
 */
class SnippetMarkersTests {

	private static final String SOURCE = """
			package example;

			class Greeter {

				// tag::greet[]
				String greet(String name) {
					// tag::inner[]
					return "Hello, " + name;
					// end::inner[]
				}
				// end::greet[]

			}
			""";

	@TempDir
	Path root;

	@Test
	void blockEqualToItsRegionPasses() throws IOException {
		write("src/Greeter.java", SOURCE);
		write("docs/page.md", """
				# Page

				<!-- snippet: src/Greeter.java#greet -->
				```java
				String greet(String name) {
					return "Hello, " + name;
				}
				```
				""");
		assertThat(problems()).isEmpty();
	}

	@Test
	void changedLineIsReportedWithPageLineAndBothTexts() throws IOException {
		write("src/Greeter.java", SOURCE);
		write("docs/page.md", """
				# Page

				<!-- snippet: src/Greeter.java#greet -->
				```java
				String greet(String name) {
					return "Hi, " + name;
				}
				```
				""");
		assertThat(problems()).singleElement()
			.asString()
			.startsWith("docs/page.md:3: the code block differs from src/Greeter.java#greet at block line 2.")
			.contains("expected (the source region):\n\t|String greet(String name) {\n\t|\treturn \"Hello, \" + name;")
			.contains("actual (the page):\n\t|String greet(String name) {\n\t|\treturn \"Hi, \" + name;");
	}

	@Test
	void missingFileMissingRegionMissingBlockAndMalformedMarkerAreReported() throws IOException {
		write("src/Greeter.java", SOURCE);
		write("README.md", """
				<!-- snippet: src/Nope.java#greet -->
				```java
				```
				<!-- snippet: src/Greeter.java#nope -->
				```java
				```
				<!-- snippet: src/Greeter.java#greet -->

				<!-- snippet: src/Greeter.java -->
				""");
		assertThat(problems()).containsExactly(
				"README.md:1: the snippet marker names src/Nope.java, which does not exist",
				"README.md:4: the snippet marker names the region 'nope', but src/Greeter.java has no "
						+ "'// tag::nope[]' ... '// end::nope[]'",
				"README.md:7: the snippet marker for src/Greeter.java#greet is not followed directly by a fenced code block",
				"README.md:9: malformed snippet marker '<!-- snippet: src/Greeter.java -->'; "
						+ "expected <!-- snippet: path/to/Source.java#tag -->");
	}

	@Test
	void javaAndKotlinBlocksWithoutMarkerAreReportedExceptPeerCodeInMigrationPages() throws IOException {
		write("src/Greeter.java", SOURCE);
		String page = """
				```java
				class Unmarked {}
				```
				<!-- peer -->
				```kotlin
				class Peer
				```
				```yaml
				lock.ttl: 30s
				```
				""";
		write("README.md", page);
		write("CHANGELOG.md", page);
		write("docs/page.md", page);
		write("docs/migration/from-elsewhere.md", page);
		assertThat(new UnmarkedExamples(new ProjectFiles(this.root)).problems()).containsExactly(
				"README.md:1: a ```java block without a '<!-- snippet: path#tag -->' line right before it",
				"README.md:5: a ```kotlin block without a '<!-- snippet: path#tag -->' line right before it",
				"docs/migration/from-elsewhere.md:1: a ```java block without a '<!-- snippet: path#tag -->' line "
						+ "right before it (or '<!-- peer -->' for a peer library's code)",
				"docs/page.md:1: a ```java block without a '<!-- snippet: path#tag -->' line right before it",
				"docs/page.md:5: a ```kotlin block without a '<!-- snippet: path#tag -->' line right before it");
	}

	private List<String> problems() {
		return new SnippetMarkers(new ProjectFiles(this.root)).problems();
	}

	private void write(String name, String text) throws IOException {
		Path file = this.root.resolve(name);
		Files.createDirectories(file.getParent());
		Files.writeString(file, text);
	}

}
