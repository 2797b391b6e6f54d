package dev.lockstarter.docs.checks;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Says how a committed configuration reference differs from the generated one: which
 * properties it misses, which it lists but the metadata does not have, or else the first
 * line that differs.
 */
final class ReferenceDifference {

	private ReferenceDifference() {
	}

	static String describe(String committed, String generated) {
		Set<String> inPage = ConfigurationReference.propertiesIn(committed);
		Set<String> inMetadata = ConfigurationReference.propertiesIn(generated);
		Set<String> missing = new TreeSet<>(inMetadata);
		missing.removeAll(inPage);
		Set<String> extra = new TreeSet<>(inPage);
		extra.removeAll(inMetadata);
		StringBuilder message = new StringBuilder(ConfigurationReference.PAGE + " is out of date.");
		if (!missing.isEmpty()) {
			message.append("\nMissing from the page: ").append(String.join(", ", missing));
		}
		if (!extra.isEmpty()) {
			message.append("\nIn the page but not in the metadata: ").append(String.join(", ", extra));
		}
		if (missing.isEmpty() && extra.isEmpty()) {
			List<String> pageLines = committed.lines().toList();
			List<String> generatedLines = generated.lines().toList();
			int line = 0;
			while (line < pageLines.size() && line < generatedLines.size()
					&& pageLines.get(line).equals(generatedLines.get(line))) {
				line++;
			}
			message.append("\nSame properties; line ")
				.append(line + 1)
				.append(" differs.\n  generated: ")
				.append((line < generatedLines.size()) ? generatedLines.get(line) : "(end of page)")
				.append("\n  in page:   ")
				.append((line < pageLines.size()) ? pageLines.get(line) : "(end of page)");
		}
		return message.toString();
	}

}
