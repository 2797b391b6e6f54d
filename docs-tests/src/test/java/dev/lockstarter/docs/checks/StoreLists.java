package dev.lockstarter.docs.checks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.lockstarter.docs.checks.MarkdownPage.NumberedLine;
import dev.lockstarter.docs.checks.StoreFacts.Fact;

/**
 * Checks the lists of stores that pages repeat from the table of docs/stores.md ("the
 * stores that keep permits", "the stores whose contenders count the time-to-live"). Each
 * such list is marked in the page's text:
 * {@code <!-- stores: shared-locks -->Redis, JDBC and in-memory<!-- end stores -->}, or
 * {@code <!-- stores: not shared-locks -->...} for the stores that lack the fact. The
 * stores the marked text names must be exactly those that the table gives. A name counts
 * for the rows it stands for: {@code Redis} for Redis on one server or Sentinel and Redis
 * Cluster, {@code Redis on one server or Sentinel} and {@code Redis Cluster} for one of
 * them; {@code JDBC} for JDBC on PostgreSQL and JDBC on MariaDB and H2,
 * {@code PostgreSQL} (or {@code JDBC on PostgreSQL}, {@code JDBC store on PostgreSQL})
 * for the first, {@code MariaDB} and {@code H2} (or {@code JDBC on MariaDB and H2}) for
 * the second.
 */
final class StoreLists {

	private static final Pattern START = Pattern.compile("<!--\\s*stores:");

	private static final Pattern REGION = Pattern
		.compile("<!--\\s*stores:\\s*(not\\s+)?([a-z-]+)\\s*-->(.*?)<!--\\s*end stores\\s*-->", Pattern.DOTALL);

	private static final Pattern LINK_TARGET = Pattern.compile("\\]\\([^)]*\\)");

	private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");

	/**
	 * The names of stores in a page's text, and the rows of the table each stands for.
	 */
	private static final Map<String, List<String>> NAMES = names();

	private final StoreFacts facts;

	StoreLists(StoreFacts facts) {
		this.facts = facts;
	}

	private static Map<String, List<String>> names() {
		Map<String, List<String>> names = new LinkedHashMap<>();
		names.put("Redis on one server or Sentinel", List.of("Redis"));
		names.put("Redis Cluster", List.of("Redis Cluster"));
		names.put("Redis", List.of("Redis", "Redis Cluster"));
		names.put("in-memory", List.of("in-memory"));
		names.put("in memory", List.of("in-memory"));
		names.put("Memcached", List.of("Memcached"));
		names.put("DynamoDB", List.of("DynamoDB"));
		// "JDBC on MariaDB" must not also be read as "JDBC", which stands for both rows
		names.put("JDBC on PostgreSQL", List.of("JDBC on PostgreSQL"));
		names.put("JDBC store on PostgreSQL", List.of("JDBC on PostgreSQL"));
		names.put("JDBC store on MariaDB and H2", List.of("JDBC on MariaDB and H2"));
		names.put("JDBC on MariaDB and H2", List.of("JDBC on MariaDB and H2"));
		names.put("JDBC on MariaDB or H2", List.of("JDBC on MariaDB and H2"));
		names.put("JDBC on MariaDB", List.of("JDBC on MariaDB and H2"));
		names.put("JDBC on H2", List.of("JDBC on MariaDB and H2"));
		names.put("JDBC", List.of("JDBC on PostgreSQL", "JDBC on MariaDB and H2"));
		names.put("PostgreSQL", List.of("JDBC on PostgreSQL"));
		names.put("MariaDB", List.of("JDBC on MariaDB and H2"));
		names.put("H2", List.of("JDBC on MariaDB and H2"));
		names.put("etcd", List.of("etcd"));
		names.put("ZooKeeper", List.of("ZooKeeper"));
		return names;
	}

	/**
	 * Every marked list whose stores differ from the table's, every malformed or unclosed
	 * mark, and every mark that a page must have and lacks.
	 * @param pages the pages to read
	 * @param required for a page's name, the marks it must have, such as
	 * {@code not shared-locks}
	 * @return one message per problem, naming the page and line; empty when all hold
	 */
	List<String> problems(List<MarkdownPage> pages, Map<String, List<String>> required) {
		List<String> problems = new ArrayList<>();
		NAMES.values()
			.stream()
			.flatMap(List::stream)
			.distinct()
			.filter((name) -> !this.facts.names().contains(name))
			.forEach((name) -> problems.add("the table has no row named '" + name + "'"));
		Map<String, Set<String>> found = new LinkedHashMap<>();
		for (MarkdownPage page : pages) {
			found.put(page.name(), check(page, problems));
		}
		required.forEach((pageName, marks) -> {
			Set<String> present = found.getOrDefault(pageName, Set.of());
			for (String mark : marks) {
				if (!present.contains(mark)) {
					problems.add(pageName + ": no list of stores marked <!-- stores: " + mark
							+ " -->; the page names the stores that " + describe(mark) + ": mark that list");
				}
			}
		});
		return problems;
	}

	/**
	 * Check the marks of one page, and answer those it has, such as "not shared-locks".
	 */
	private Set<String> check(MarkdownPage page, List<String> problems) {
		List<NumberedLine> lines = page.proseLines();
		StringBuilder text = new StringBuilder();
		List<Integer> starts = new ArrayList<>();
		for (NumberedLine line : lines) {
			starts.add(text.length());
			text.append(line.text()).append('\n');
		}
		blankCodeSpans(text);
		Set<String> marks = new LinkedHashSet<>();
		Matcher start = START.matcher(text);
		while (start.find()) {
			String where = page.name() + ":" + lineAt(lines, starts, start.start()) + ": ";
			Matcher region = REGION.matcher(text).region(start.start(), text.length());
			if (!region.lookingAt()) {
				problems.add(where + "a <!-- stores: ... --> mark without its <!-- end stores -->, or malformed");
				continue;
			}
			boolean negated = region.group(1) != null;
			String key = region.group(2);
			Optional<Fact> fact = StoreFacts.fact(key);
			if (fact.isEmpty()) {
				problems
					.add(where + "unknown fact '" + key + "' in a <!-- stores: ... --> mark; known: " + Fact.keys());
				continue;
			}
			String mark = (negated ? "not " : "") + key;
			marks.add(mark);
			Set<String> named = storesNamedIn(region.group(3));
			Set<String> expected = this.facts.storesWith(fact.get(), !negated);
			if (!named.equals(expected)) {
				problems.add(where + "the stores that " + describe(mark) + " are listed as " + named
						+ ", but the table of " + StoreFacts.PAGE + " gives " + expected + difference(named, expected));
			}
		}
		return marks;
	}

	/**
	 * The rows of the table that a text names, longer names first, so that
	 * {@code Redis Cluster} is not also read as {@code Redis}.
	 * @param text the marked text
	 * @return the rows' names, in the order of the table
	 */
	Set<String> storesNamedIn(String text) {
		StringBuilder rest = new StringBuilder(LINK_TARGET.matcher(text).replaceAll("]"));
		Set<String> named = new LinkedHashSet<>();
		List<String> byLength = NAMES.keySet()
			.stream()
			.sorted(Comparator.comparingInt(String::length).reversed())
			.toList();
		for (String name : byLength) {
			Matcher matcher = Pattern.compile("(?<![\\w-])" + Pattern.quote(name) + "(?![\\w-])").matcher(rest);
			while (matcher.find()) {
				named.addAll(NAMES.get(name));
				for (int i = matcher.start(); i < matcher.end(); i++) {
					rest.setCharAt(i, ' ');
				}
			}
		}
		Set<String> ordered = new LinkedHashSet<>(this.facts.names());
		ordered.retainAll(named);
		return ordered;
	}

	/**
	 * Blank out inline code, where a page shows a mark rather than makes one, keeping
	 * every other character where it is.
	 */
	private static void blankCodeSpans(StringBuilder text) {
		Matcher span = CODE_SPAN.matcher(text.toString());
		while (span.find()) {
			for (int i = span.start(); i < span.end(); i++) {
				text.setCharAt(i, ' ');
			}
		}
	}

	private static String difference(Set<String> named, Set<String> expected) {
		Set<String> missing = new LinkedHashSet<>(expected);
		missing.removeAll(named);
		Set<String> extra = new LinkedHashSet<>(named);
		extra.removeAll(expected);
		StringBuilder text = new StringBuilder();
		if (!missing.isEmpty()) {
			text.append("; missing: ").append(String.join(", ", missing));
		}
		if (!extra.isEmpty()) {
			text.append("; not to be listed: ").append(String.join(", ", extra));
		}
		return text.toString();
	}

	private static String describe(String mark) {
		boolean negated = mark.startsWith("not ");
		String key = negated ? mark.substring("not ".length()) : mark;
		return (negated ? "lack " : "have ") + key;
	}

	private static int lineAt(List<NumberedLine> lines, List<Integer> starts, int offset) {
		int index = 0;
		while (index + 1 < starts.size() && starts.get(index + 1) <= offset) {
			index++;
		}
		return lines.isEmpty() ? 1 : lines.get(index).number();
	}

}
