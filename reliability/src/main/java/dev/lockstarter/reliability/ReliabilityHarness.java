package dev.lockstarter.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The reliability harness: runs this starter's lock and three deliberately broken locks
 * under the same workload, each in its own {@link Scenario}, and collects what the
 * {@link Checker} found.
 * <p>
 * The <em>short</em> form (no duration given) runs this starter's lock for
 * {@value #SHORT_OURS_SECONDS} seconds and each broken lock until it is caught, at most
 * {@value #SHORT_CONTROL_SECONDS} seconds. The <em>long</em> form gives this starter's
 * lock 70% of the duration and each broken lock 10%, for the whole of it.
 *
 * @since 0.1.0
 */
public final class ReliabilityHarness {

	/**
	 * System property with the duration of the long form, such as {@code 10m} or
	 * {@code 300s}.
	 */
	public static final String DURATION_PROPERTY = "reliability.duration";

	/**
	 * System property naming the scenarios to run, comma-separated; all by default. For
	 * debugging.
	 */
	public static final String SCENARIOS_PROPERTY = "reliability.scenarios";

	static final int SHORT_OURS_SECONDS = 45;

	static final int SHORT_CONTROL_SECONDS = 45;

	static final ScenarioRun.Settings SETTINGS = new ScenarioRun.Settings(3, 4, List.of("k0", "k1", "k2"),
			Duration.ofSeconds(1), 20);

	private ReliabilityHarness() {
	}

	/**
	 * Parse a duration such as {@code 10m}, {@code 300s}, {@code 1h} or an ISO-8601
	 * {@code PT5M}.
	 * @param text the duration
	 * @return the duration, positive
	 * @throws IllegalArgumentException if the text is not a positive duration
	 */
	public static Duration parseDuration(String text) {
		Assert.hasText(text, "'" + DURATION_PROPERTY + "' must not be empty");
		String value = text.strip().toLowerCase();
		Duration duration;
		try {
			if (value.startsWith("pt")) {
				duration = Duration.parse(value.toUpperCase());
			}
			else {
				long amount = Long.parseLong(value.substring(0, value.length() - 1));
				duration = switch (value.charAt(value.length() - 1)) {
					case 's' -> Duration.ofSeconds(amount);
					case 'm' -> Duration.ofMinutes(amount);
					case 'h' -> Duration.ofHours(amount);
					default -> throw new IllegalArgumentException();
				};
			}
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("'" + DURATION_PROPERTY + "' must be a duration such as 10m, 300s or "
					+ "PT5M, was '" + text + "'");
		}
		Assert.isTrue(!duration.isNegative() && !duration.isZero(),
				() -> "'" + DURATION_PROPERTY + "' must be positive, was '" + text + "'");
		return duration;
	}

	static List<Scenario> scenarios(@Nullable Duration longDuration) {
		boolean shortForm = longDuration == null;
		Duration ours = shortForm ? Duration.ofSeconds(SHORT_OURS_SECONDS) : longDuration.multipliedBy(7).dividedBy(10);
		Duration control = shortForm ? Duration.ofSeconds(SHORT_CONTROL_SECONDS) : longDuration.dividedBy(10);
		return List.of(
				new Scenario("ours", Worker.OURS,
						"`LockTemplate` on `RedisLockStore`: wait up to 2 × TTL, renewal on, fencing tokens", ours,
						false, true, true, true, true),
				new Scenario("plain-del", BrokenLockStore.Flaw.PLAIN_DEL.name(),
						"release by plain `DEL`, no owner check", control, shortForm, true, false, false, false),
				new Scenario("get-then-del", BrokenLockStore.Flaw.GET_THEN_DEL.name(),
						"release by `GET`, compare in the client, then `DEL` (" + BrokenLockStore.STEP_GAP.toMillis()
								+ " ms apart)",
						control, shortForm, true, false, false, false),
				new Scenario("setnx-then-expire", BrokenLockStore.Flaw.SETNX_THEN_EXPIRE.name(),
						"acquire by `SETNX`, then `EXPIRE` (" + BrokenLockStore.STEP_GAP.toMillis() + " ms apart)",
						control, shortForm, false, false, false, true));
	}

	static Run run(@Nullable Duration longDuration, Path logs) {
		try {
			Files.createDirectories(logs);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Instant startedAt = Instant.now();
		String loadBefore = Machine.loadAverage();
		long started = System.nanoTime();
		List<Result> results = new ArrayList<>();
		String only = System.getProperty(SCENARIOS_PROPERTY, "");
		for (Scenario scenario : scenarios(longDuration)) {
			if (!only.isBlank() && !List.of(only.split(",")).contains(scenario.name())) {
				continue;
			}
			Findings findings = ScenarioRun.run(scenario, SETTINGS, logs);
			System.err.println("[" + scenario.name() + "] " + findings);
			results.add(new Result(scenario, findings));
		}
		return new Run(startedAt, Duration.ofNanos(System.nanoTime() - started), longDuration, results, loadBefore,
				Machine.loadAverage());
	}

	/**
	 * The findings of one scenario.
	 */
	record Result(Scenario scenario, Findings findings) {
	}

	/**
	 * A whole run of the harness.
	 */
	record Run(Instant startedAt, Duration elapsed, @Nullable Duration longDuration, List<Result> results,
			String loadBefore, String loadAfter) {

		Result ours() {
			return this.results.get(0);
		}

		List<Result> controls() {
			return this.results.subList(1, this.results.size());
		}

	}

}
