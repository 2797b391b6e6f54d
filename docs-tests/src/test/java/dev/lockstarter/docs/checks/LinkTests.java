package dev.lockstarter.docs.checks;

import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md, CHANGELOG.md, the modules' README.md and docs/
 * resolves: its file or directory exists and its anchor is a heading of the page it
 * names.
 */
class LinkTests {

	@Test
	void everyRelativeLinkResolves() {
		Problems.assertNone(new BrokenLinks(ProjectFiles.current()).problems(), "broken link(s)");
	}

}
