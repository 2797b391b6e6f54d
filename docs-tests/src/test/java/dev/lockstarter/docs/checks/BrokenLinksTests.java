package dev.lockstarter.docs.checks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link BrokenLinks} and {@link HeadingAnchors} on crafted pages: the negative
 * controls of {@link LinkTests}.
 */
class BrokenLinksTests {

	@TempDir
	Path root;

	@Test
	void resolvingLinksPass() throws IOException {
		write("docs/target.md", """
				# Target

				## Waiting for a lock
				## `lock.ttl` and the *renewal*: how it works (in 2 steps)
				## Usage
				## Usage
				<a id="explicit"></a>
				```
				## Not a heading
				```
				""");
		write("docs/images/logo.png", "");
		write("README.md", """
				See [waiting](docs/target.md#waiting-for-a-lock), [ttl](docs/target.md#lockttl-and-the-renewal-how-it-works-in-2-steps)
				and [second usage](docs/target.md#usage-1), [explicit](docs/target.md#explicit), ![logo](docs/images/logo.png),
				[the docs](docs/), [top](#readme), [web](https://example.com/x.md#nope), [mail](mailto:a@b.c),
				`[code](nope.md)`.

				# Readme

				[ref]: docs/target.md#usage

				```markdown
				[inside a block](nope.md)
				```
				""");
		assertThat(new BrokenLinks(new ProjectFiles(this.root)).problems()).isEmpty();
	}

	@Test
	void missingFileAndMissingAnchorAreReportedWithPageAndLine() throws IOException {
		write("docs/target.md", """
				# Target

				```
				## Not a heading
				```
				""");
		write("docs/page.md", """
				# Page

				[gone](gone.md) and [no heading](target.md#not-a-heading),
				[own](#nope) and [out](../../elsewhere.md).
				""");
		assertThat(new BrokenLinks(new ProjectFiles(this.root)).problems()).containsExactly(
				"docs/page.md:3: (gone.md) no file or directory docs/gone.md",
				"docs/page.md:3: (target.md#not-a-heading) no heading or anchor 'not-a-heading' in docs/target.md",
				"docs/page.md:4: (#nope) no heading or anchor 'nope' in docs/page.md",
				"docs/page.md:4: (../../elsewhere.md) points outside the project");
	}

	@Test
	void slugFollowsGitHub() {
		assertThat(HeadingAnchors.slug("Waiting, renewal & fencing")).isEqualTo("waiting-renewal--fencing");
		assertThat(HeadingAnchors.slug("`@ExclusiveRequest` on a `suspend` fun")).isEqualTo("exclusiverequest-on-a-suspend-fun");
		assertThat(HeadingAnchors.slug("lock_store and max-hold")).isEqualTo("lock_store-and-max-hold");
		assertThat(HeadingAnchors.slug("See [the stores](stores.md)")).isEqualTo("see-the-stores");
	}

	private void write(String name, String text) throws IOException {
		Path file = this.root.resolve(name);
		Files.createDirectories(file.getParent());
		Files.writeString(file, text);
	}

}
