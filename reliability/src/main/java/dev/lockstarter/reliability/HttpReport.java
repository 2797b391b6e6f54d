package dev.lockstarter.reliability;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

import dev.lockstarter.reliability.ReliabilityHarness.HttpResult;

/**
 * The HTTP part of the report: a summary line and a column per {@link HttpScenario}.
 */
final class HttpReport {

	private HttpReport() {
	}

	static void summary(StringBuilder md, List<HttpResult> results) {
		for (HttpResult result : results) {
			HttpFindings findings = result.findings();
			HttpScenario scenario = result.scenario();
			md.append("- **HTTP, ")
				.append(scenario.description())
				.append("** (`")
				.append(scenario.name())
				.append("`): ");
			md.append(n(findings.payments.keys.get()))
				.append(" idempotent payments (")
				.append(n(findings.payments.executions))
				.append(" executed)");
			if (scenario.registrations()) {
				md.append(" and ")
					.append(n(findings.registrations.names.get()))
					.append(" registration storms of ")
					.append(HttpScenarioRun.DEVICES)
					.append(" devices");
			}
			md.append(" in ")
				.append(seconds(findings.durationMillis))
				.append(" under ")
				.append(n(findings.kills))
				.append(" `kill -9` of instances, ")
				.append(n(findings.crashes()))
				.append(" halts at a crash point and ")
				.append(n(findings.storePauses))
				.append(" store pauses: ");
			if (scenario.registrations()) {
				md.append("**").append(n(findings.registrations.duplicates)).append(" names registered twice**, ");
			}
			md.append("**").append(n(findings.payments.doubles)).append(" double executions of a payment**");
			if (findings.payments.doubles > 0) {
				md.append(" (")
					.append(n(findings.payments.doublesAfterDeath))
					.append(" after an instance died between the payment and the keeping of its response)");
			}
			md.append(". Verdict: ").append(verdict(result)).append(".\n");
		}
		for (HttpResult result : results) {
			HttpScenario scenario = result.scenario();
			HttpFindings findings = result.findings();
			if (scenario.registrations()) {
				md.append("- **Broken HTTP path, registration without the lock** (`/api/unsafe/users`, in `")
					.append(scenario.name())
					.append("`): ")
					.append(unlockedCaught(findings) ? "caught" : "NOT caught")
					.append(": ")
					.append(n(findings.unlocked.duplicates))
					.append(" of ")
					.append(n(findings.unlocked.names.get()))
					.append(" names registered more than once.\n");
			}
			if (scenario.lateResponseControl()) {
				md.append("- **Broken HTTP path, response kept ")
					.append(HttpInstance.LATE_RESPONSE_MILLIS)
					.append(" ms after the lock is released** (in `")
					.append(scenario.name())
					.append("`): ")
					.append(lateCaught(findings) ? "caught" : "NOT caught")
					.append(": ")
					.append(n(findings.lateResponse.unexplainedDoubles()))
					.append(" double executions over ")
					.append(n(findings.lateResponse.keys.get()))
					.append(" payments, with no instance death to explain them.\n");
			}
		}
	}

	static void append(StringBuilder md, List<HttpResult> results) {
		md.append("## HTTP paths\n\n");
		md.append("| |");
		for (HttpResult result : results) {
			md.append(" `").append(result.scenario().name()).append("` |");
		}
		md.append("\n|---|");
		md.append("---:|".repeat(results.size()));
		md.append("\n");
		row(md, results, "application", (r) -> r.scenario().description());
		row(md, results, "clients ran for", (r) -> seconds(r.findings().durationMillis));
		row(md, results, "instances started (" + HttpScenarioRun.INSTANCES + " at a time)",
				(r) -> n(r.findings().instancesStarted));
		row(md, results, "`kill -9` of an instance at a random moment", (r) -> n(r.findings().kills));
		for (String point : HttpScenarioRun.CRASH_POINTS) {
			row(md, results, "halts at crash point `" + point + "`",
					(r) -> n(r.findings().crashes.getOrDefault(point, 0L)));
		}
		row(md, results, "store pauses (SIGSTOP " + HttpScenarioRun.STORE_PAUSE_MILLIS + " ms)",
				(r) -> n(r.findings().storePauses));
		row(md, results, "registration storms (names)", (r) -> reg(r, (g) -> n(g.names.get())));
		row(md, results, "… requests (incl. retries)", (r) -> reg(r, (g) -> n(g.requests.get())));
		row(md, results, "… answered 201 / 422 taken / 409 in flight",
				(r) -> reg(r, (g) -> n(g.created.get()) + " / " + n(g.taken.get()) + " / " + n(g.conflicts.get())));
		row(md, results, "… users stored", (r) -> reg(r, (g) -> n(g.stored)));
		row(md, results, "**names registered more than once**", (r) -> reg(r, (g) -> "**" + n(g.duplicates) + "**"));
		row(md, results, "names a client saw registered, not stored", (r) -> reg(r, (g) -> n(g.lost)));
		row(md, results, "idempotent payments (keys)", (r) -> n(r.findings().payments.keys.get()));
		row(md, results, "… requests (incl. retries)", (r) -> n(r.findings().payments.requests.get()));
		row(md, results, "… answered 201 (of them replayed)",
				(r) -> n(r.findings().payments.completed.get()) + " (" + n(r.findings().payments.replayed.get()) + ")");
		row(md, results, "… answered 409 in progress", (r) -> n(r.findings().payments.conflicts.get()));
		row(md, results, "… given up after 30 s", (r) -> n(r.findings().payments.abandoned.get()));
		row(md, results, "payments executed (in the application's data)", (r) -> n(r.findings().payments.executions));
		row(md, results, "**double executions**", (r) -> "**" + n(r.findings().payments.doubles) + "**");
		row(md, results, "… after an instance died between the payment and the keeping of its response",
				(r) -> n(r.findings().payments.doublesAfterDeath));
		row(md, results, "… after the store refused to keep a response (logged)",
				(r) -> n(r.findings().payments.doublesAfterStoreFailure));
		row(md, results, "… unexplained", (r) -> n(r.findings().payments.unexplainedDoubles()));
		row(md, results, "payments whose response was never kept", (r) -> n(r.findings().payments.notKept));
		row(md, results, "window from payment to kept response, p50 / p99 / max",
				(r) -> window(r.findings().payments.windowMicros));
		row(md, results, "control: unlocked registration, names stored twice",
				(r) -> r.scenario().registrations()
						? n(r.findings().unlocked.duplicates) + " of " + n(r.findings().unlocked.names.get())
								+ (unlockedCaught(r.findings()) ? ", caught" : ", NOT caught")
						: "–");
		row(md, results, "control: late response, unexplained double executions",
				(r) -> r.scenario().lateResponseControl() ? n(r.findings().lateResponse.unexplainedDoubles()) + " over "
						+ n(r.findings().lateResponse.keys.get()) + " payments"
						+ (lateCaught(r.findings()) ? ", caught" : ", NOT caught") : "–");
		row(md, results, "verdict", (r) -> "**" + verdict(r) + "**");
		md.append("\n");
		md.append(HOW);
	}

	private static final String HOW = """
			### What the harness does on the HTTP paths

			**Instances.** Two instances of the sample app at a time, each in its own JVM, with `lock.ttl=3s`, a
			payment that takes 200 ms and a points service that takes 100 ms. On Redis (profile `redis`) the locks,
			the users, the payments and the kept responses all live in one `redis-server`; on PostgreSQL (profile
			`jdbc`) in one database. A keeper starts a new instance for every one that dies.

			**Clients.** *Registration storms*: three devices register the same new name at once on random
			instances, each retrying on `409`, `5xx`, time-outs and refused connections until it gets `201` or
			`422` (taken). *Idempotent payments*: each client pays a new amount under a new `Idempotency-Key`, with
			a time-out drawn between 150 ms and 1.5 s, and retries with the same key and body on time-outs, `409`,
			`5xx` and refused connections until it gets `201`, for at most 30 s.

			**Nemeses.** 2 s after both instances are up (so that one at most is down at a time) and after the last
			fault, the next: first `kill -9` of a random instance at a random moment, then one payment's first attempt asks its instance to halt (`Runtime.halt`, as abrupt as `kill -9`) at a
			crash point, `write`, right after the payment's row is written (before its transaction commits, if
			there is one), then `paid`, right after the payment is durable and before its response is kept (the
			window), then `kept`, right after the store took the response (before the commit that holds it, with
			`lock.idempotency.transactional=true`); a point not reached (its request met a conflict or a paused
			store) is armed again before the next. Then all four in turn. Every
			4 s, a 1 s `SIGSTOP` of the store, shorter than the TTL less one renewal interval, so that no lock is
			lost to it. A scenario goes on past its duration until each of the four faults has happened, however
			long instances take to restart (%d min at most, a bound against a hang).

			**Oracle.** The application's own data is the truth: at the end the harness counts the users stored
			under each name and the payments stored for each key (every key pays its own amount). Hooks in each
			instance record in a second `redis-server` when each payment became durable, when its response was
			kept, and when the store refused to keep it. A double execution that follows a payment whose response
			was never kept, because its instance died within 2 s of the payment or because the store refused it, is
			the documented window; any other is unexplained and fails the build. With
			`lock.idempotency.transactional=true` every double execution fails the build.

			**Controls.** `/api/unsafe/users` registers without the lock: caught when a name is stored twice. The
			late-response control keeps the response 1.5 s after the request's lock is released (by a lock of its
			own), as a filter that stores responses asynchronously would: caught when a retry in that gap pays
			again with no instance death to explain it.

			"""
		.formatted(HttpScenarioRun.FAULTS_BOUND.toMinutes());

	static boolean unlockedCaught(HttpFindings findings) {
		return findings.unlocked.duplicates > 0;
	}

	static boolean lateCaught(HttpFindings findings) {
		return findings.lateResponse.unexplainedDoubles() > 0;
	}

	static String verdict(HttpResult result) {
		HttpFindings findings = result.findings();
		HttpScenario scenario = result.scenario();
		if (findings.registrations.duplicates > 0 || findings.registrations.lost > 0
				|| findings.payments.unexplainedDoubles() > 0
				|| (scenario.transactional() && findings.payments.doubles > 0)) {
			return "BROKEN";
		}
		if (findings.payments.doubles > 0) {
			return "holds, except the documented window: " + n(findings.payments.doubles)
					+ " double executions, each after a payment whose response could not be kept";
		}
		return "holds";
	}

	static String window(List<Long> micros) {
		if (micros.isEmpty()) {
			return "none (kept in the payment's transaction)";
		}
		List<Long> sorted = new ArrayList<>(micros);
		Collections.sort(sorted);
		return millis(percentile(sorted, 50)) + " / " + millis(percentile(sorted, 99)) + " / "
				+ millis(sorted.get(sorted.size() - 1)) + " ms";
	}

	private static long percentile(List<Long> sorted, int percent) {
		int index = (int) Math.ceil(percent / 100.0 * sorted.size()) - 1;
		return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
	}

	private static String millis(long micros) {
		return String.format("%.1f", micros / 1000.0);
	}

	private static String reg(HttpResult result, Function<HttpFindings.Registrations, String> cell) {
		return result.scenario().registrations() ? cell.apply(result.findings().registrations) : "–";
	}

	private static void row(StringBuilder md, List<HttpResult> results, String name,
			Function<HttpResult, String> cell) {
		ReliabilityReport.row(md, results, name, cell);
	}

	private static String n(long value) {
		return ReliabilityReport.n(value);
	}

	private static String seconds(long millis) {
		return ReliabilityReport.seconds(millis);
	}

}
