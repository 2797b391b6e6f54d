package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.lockstarter.reliability.Checker.Cause;
import dev.lockstarter.reliability.PeerComparison.Cell;

import static dev.lockstarter.reliability.ReliabilityReport.n;

/**
 * Writes the comparison with the peers ({@link PeerComparison}) as a section of
 * {@code docs/RELIABILITY.md}, between {@link #START} and {@link #END}, which the
 * harness's own report keeps when it rewrites the page.
 */
final class PeerReport {

	static final String START = "<!-- peers: written by PeerComparisonTests; change the harness, not this section -->";

	static final String END = "<!-- end peers -->";

	static final String COMMAND = "./mvnw -pl reliability -am verify -P peers -Dtest=PeerComparisonTests "
			+ "-Dsurefire.failIfNoSpecifiedTests=false";

	private PeerReport() {
	}

	/**
	 * Put a run's section into a page, in place of the section there, or before the
	 * page's "What the harness does" if it has none.
	 * @param run the run
	 * @param page the page's file
	 */
	static void write(PeerComparison.Run run, Path page) {
		try {
			String text = Files.exists(page) ? Files.readString(page) : "";
			Files.createDirectories(page.toAbsolutePath().getParent());
			Files.writeString(page, splice(text, render(run)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write " + page, ex);
		}
	}

	/**
	 * Put a section into a page: in place of the one between the markers, else before "##
	 * What the harness does", else at the end.
	 * @param page the page
	 * @param section the section, markers included
	 * @return the page with the section
	 */
	static String splice(String page, String section) {
		int start = page.indexOf(START);
		int end = page.indexOf(END);
		if (start >= 0 && end > start) {
			return page.substring(0, start) + section + page.substring(end + END.length());
		}
		int before = page.indexOf("\n## What the harness does\n");
		if (before >= 0) {
			return page.substring(0, before + 1) + section + "\n\n" + page.substring(before + 1);
		}
		return page + "\n" + section + "\n";
	}

	/**
	 * The section a page had, markers included, to keep when the rest is rewritten.
	 * @param page the page
	 * @return the section, or an empty string
	 */
	static String existing(String page) {
		int start = page.indexOf(START);
		int end = page.indexOf(END);
		return (start >= 0 && end > start) ? page.substring(start, end + END.length()) : "";
	}

	static String render(PeerComparison.Run run) {
		StringBuilder md = new StringBuilder();
		md.append(START).append("\n\n## The peers under the same faults\n\n");
		md.append("Measured by `PeerComparisonTests` on ")
			.append(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")
				.withZone(ZoneOffset.UTC)
				.format(run.startedAt()))
			.append(" (`-Dreliability.peers.duration=")
			.append(run.duration().toSeconds())
			.append("s`): ")
			.append(n(run.cells().size()))
			.append(" scenarios, ")
			.append(n(run.cells().stream().mapToLong((cell) -> cell.findings().entered).sum()))
			.append(" critical sections, in ")
			.append(run.elapsed().toMinutes())
			.append(" min; load average ")
			.append(run.loadBefore())
			.append(" before, ")
			.append(run.loadAfter())
			.append(" after, on 2 cores. Every lock runs the workload above (the same workers, keys, TTL, sections, ")
			.append("oracle and checker) under one fault at a time, for ")
			.append(run.duration().toSeconds())
			.append(" s (on Sentinel, where the failover is the only fault, ")
			.append(run.duration().multipliedBy(PeerFault.values().length).toSeconds())
			.append(" s; every run goes on until its store fault has happened). ")
			.append("What each library promises, and how the checker asks it, is in ")
			.append("[the comparison](comparison.md).\n\n");
		md.append(HOW_TO_READ);
		md.append("### Overview\n\n");
		md.append("Overlaps while the lock was held as its library promises, of the critical sections entered.\n\n");
		md.append("| lock | servers |");
		for (PeerFault fault : PeerFault.values()) {
			md.append(" ").append(fault.heading()).append(" |");
		}
		md.append("\n|---|---|");
		for (int i = 0; i < PeerFault.values().length; i++) {
			md.append("---:|");
		}
		md.append("\n");
		Map<ComparedLock, Map<PeerFault, Cell>> byLock = byLock(run);
		byLock.forEach((lock, cells) -> {
			md.append("| [")
				.append(lock.library())
				.append("](#")
				.append(anchor(lock))
				.append(") | ")
				.append(servers(lock.backend()))
				.append(" |");
			for (PeerFault fault : PeerFault.values()) {
				Cell cell = cells.get(fault);
				md.append(" ").append((cell != null) ? overview(run, cell) : "–").append(" |");
			}
			md.append("\n");
		});
		md.append("\n");
		byLock.forEach((lock, cells) -> details(md, run, lock, cells));
		md.append("<a id=\"commands-for-the-peers\"></a>\n### Commands\n\n");
		md.append("The whole comparison (about ")
			.append(run.elapsed().toMinutes())
			.append(" minutes; not part of `./mvnw verify` nor of CI), which rewrites this section:\n\n```\n")
			.append(COMMAND)
			.append(" -Dreliability.peers.duration=")
			.append(run.duration().toSeconds())
			.append("s\n```\n\nOne row: the same with `-Dreliability.scenarios=` and the row's scenarios. ")
			.append("A run of some scenarios writes `reliability/target/reliability/PEERS.md` only.\n\n");
		md.append(END);
		return md.toString();
	}

	private static final String HOW_TO_READ = """
			**The same TTL for all.** The harness's TTL of 1 s is every lock's: this starter's and Spring
			Integration's TTL, Redisson's watchdog timeout, ShedLock's `lockAtMostFor`, the session timeout of
			the ZooKeeper clients, jetcd's lease. A pause lasts twice that. A longer TTL makes each fault rarer,
			not different.

			**How to read it.** A section is *held as promised* when the lock's library, by its own means, says
			after the section's exit that the lock was held from its acquisition on: this starter's
			`Lease.isHeld()`, Redisson's `isHeldByCurrentThread()`, an `unlock()` of Spring Integration's
			registries that does not throw, Curator's connection state, jetcd's lease, ShedLock's
			`lockAtMostFor`. Two such sections inside at once on one key are an overlap the library's own promise
			rules out. *All overlaps* counts every two holders at once, whatever the library said: mutual
			exclusion itself. The overlaps between the two are the ones a library owns up to: a pause past the TTL,
			a loss it reported, a store fault that lost locks (Sentinel). *Lost updates* are writes of a plain
			read-modify-write counter lost to another section's; on the *fenced* register every write carries
			the lock's fencing token and a write with a token below one already seen (read or written) is
			refused. A peer's anomaly counts only when the scenario, run again, shows one too, and this
			starter's lock on the same servers under the same fault showed none; a cell reads *N, not seen again*
			otherwise. Every row's last column names the scenarios that reproduce it, this starter's lock beside
			the peer: add it to the command in [Commands](#commands-for-the-peers).

			""";

	private static void details(StringBuilder md, PeerComparison.Run run, ComparedLock lock,
			Map<PeerFault, Cell> cells) {
		md.append("<a id=\"").append(anchor(lock)).append("\"></a>\n");
		md.append("### ").append(lock.library()).append(" on ").append(servers(lock.backend())).append("\n\n");
		md.append("Set up: ")
			.append(lock.setup())
			.append(". Held as promised: ")
			.append(lock.heldWhen())
			.append(".\n\n");
		md.append("| fault | sections | **held as promised: overlaps** | all overlaps | of them: pause / loss "
				+ "reported / store fault | lost updates | of them between sections held as promised | lost "
				+ "updates, fenced register | reproduce |\n");
		md.append("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
		for (Cell cell : cells.values()) {
			Findings findings = cell.findings();
			md.append("| ")
				.append(cell.fault().description(lock.backend()))
				.append(" | ")
				.append(n(findings.entered))
				.append(" | **")
				.append(promised(run, cell))
				.append("** | ")
				.append(n(findings.totalOverlaps()))
				.append(" | ")
				.append(n(findings.overlaps(Cause.PAUSE)))
				.append(" / ")
				.append(n(findings.overlaps(Cause.LOST)))
				.append(" / ")
				.append(n(findings.overlaps(Cause.STORE_LOST)))
				.append(" | ")
				.append(n(findings.lostUpdates))
				.append(" | ")
				.append(n(findings.clobbers(Cause.REAL)))
				.append(" | ")
				.append(lock.fencing() ? n(findings.fencedLostUpdates) : "no tokens")
				.append(" | `-Dreliability.scenarios=")
				.append(scenarios(run, cell))
				.append("` |\n");
		}
		md.append("\n");
	}

	private static String overview(PeerComparison.Run run, Cell cell) {
		return "[" + promised(run, cell) + "](#" + anchor(cell.lock()) + ") of " + n(cell.findings().entered);
	}

	/** The overlaps while held as promised, with the repeat's for an anomaly. */
	private static String promised(PeerComparison.Run run, Cell cell) {
		long real = cell.findings().overlaps(Cause.REAL);
		Findings again = cell.again();
		if (cell.lock().isOurs() || !PeerComparison.isAnomaly(cell.findings())) {
			return n(real);
		}
		if (cell.confirmedAnomaly(run.oursBeside(cell)) && again != null) {
			return n(real) + ", again " + n(again.overlaps(Cause.REAL));
		}
		return n(real) + ", not seen again";
	}

	private static String scenarios(PeerComparison.Run run, Cell cell) {
		Cell ours = cell.lock().isOurs() ? null : run.oursBeside(cell);
		String name = cell.fault().scenario(cell.lock(), run.duration()).name();
		return (ours != null) ? ours.fault().scenario(ours.lock(), run.duration()).name() + "," + name : name;
	}

	private static Map<ComparedLock, Map<PeerFault, Cell>> byLock(PeerComparison.Run run) {
		Map<ComparedLock, Map<PeerFault, Cell>> byLock = new LinkedHashMap<>();
		for (Cell cell : run.cells()) {
			byLock.computeIfAbsent(cell.lock(), (lock) -> new LinkedHashMap<>()).put(cell.fault(), cell);
		}
		return byLock;
	}

	static String anchor(ComparedLock lock) {
		return "peer-" + lock.name();
	}

	static String servers(Backend backend) {
		return switch (backend) {
			case REDIS -> "one Redis";
			case SENTINEL -> "Redis Sentinel";
			case JDBC -> "PostgreSQL";
			case ZOOKEEPER -> "a ZooKeeper ensemble";
			case ETCD -> "an etcd cluster";
			default -> backend.description();
		};
	}

}
