package dev.lockstarter.docs.checks;

import java.util.List;
import java.util.Optional;

/**
 * Says how the store table of docs/stores.md differs from the one built from the store
 * classes: a missing marker, or the first line that differs.
 */
final class StoreTableDifference {

	private StoreTableDifference() {
	}

	/**
	 * Compare a page's table with the generated one.
	 * @param pageLines the lines of docs/stores.md
	 * @param generated the generated table's lines
	 * @return what differs, or empty when the table is the generated one
	 */
	static Optional<String> describe(List<String> pageLines, List<String> generated) {
		Optional<GeneratedRegion> region = GeneratedRegion.find(pageLines, StoreFacts.START, StoreFacts.END);
		if (region.isEmpty()) {
			return Optional.of(StoreFacts.PAGE + " has no store table: put the lines\n  " + StoreFacts.START + "\n  "
					+ StoreFacts.END + "\nwhere it goes, then generate it.\n" + regenerate());
		}
		List<String> table = region.get().content(pageLines);
		if (table.equals(generated)) {
			return Optional.empty();
		}
		int line = 0;
		while (line < table.size() && line < generated.size() && table.get(line).equals(generated.get(line))) {
			line++;
		}
		return Optional.of(StoreFacts.PAGE + ": the store table differs from the one built from the store classes"
				+ " at line " + (region.get().start() + 2 + line) + ".\n  generated: "
				+ ((line < generated.size()) ? generated.get(line) : "(end of table)") + "\n  in page:   "
				+ ((line < table.size()) ? table.get(line) : "(end of table)") + "\n" + regenerate());
	}

	private static String regenerate() {
		return "Regenerate it with: " + ConfigurationReference.REGENERATE;
	}

}
