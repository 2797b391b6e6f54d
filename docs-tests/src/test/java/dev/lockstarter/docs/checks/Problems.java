package dev.lockstarter.docs.checks;

import java.util.List;

import static org.assertj.core.api.Assertions.fail;

/**
 * Fails a test with every problem a check found, one per line.
 */
final class Problems {

	private Problems() {
	}

	static void assertNone(List<String> problems, String summary) {
		if (!problems.isEmpty()) {
			fail(problems.size() + " " + summary + ":\n" + String.join("\n", problems));
		}
	}

}
