package dev.lockstarter.sample.sum;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.sample.ProblemResponses;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.util.StringUtils;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The sum API: {@code GET /api/sum?values=1,2} sums through the expensive, shared
 * computation, and {@code GET /api/sum/calls} tells how often it ran.
 *
 * @since 0.1.0
 */
@RestController
public class SumController {

	/** Type of the problem of a sum request with missing or malformed values. */
	public static final URI INVALID_SUM_VALUES = URI.create("urn:lockstarter:sample:problem:invalid-sum-values");

	private static final int MAX_VALUES = 100;

	private final SumService sums;

	/**
	 * Create a new controller.
	 * @param sums the sum service
	 */
	public SumController(SumService sums) {
		this.sums = sums;
	}

	/**
	 * Sum comma-separated integers.
	 * @param values the values, such as {@code 1,2}
	 * @return the sum
	 */
	@GetMapping("/api/sum")
	public Sum sum(@RequestParam(required = false) @Nullable String values) {
		return this.sums.sum(parse(values));
	}

	/**
	 * Return how often the expensive computation ran.
	 * @return the number of runs
	 */
	@GetMapping("/api/sum/calls")
	public SumCalls calls() {
		return this.sums.calls();
	}

	/**
	 * Answer a sum request with missing or malformed values.
	 * @param ex the failure
	 * @return a {@code 400} problem response
	 */
	@ExceptionHandler
	public ResponseEntity<ProblemDetail> handleInvalidValues(InvalidSumValuesException ex) {
		return ProblemResponses.respond(ProblemResponses.problem(HttpStatus.BAD_REQUEST, INVALID_SUM_VALUES,
				"Invalid values", ex.getMessage()));
	}

	static List<Long> parse(@Nullable String values) {
		if (!StringUtils.hasText(values)) {
			throw new InvalidSumValuesException("'values' must be given as comma-separated integers, such as 1,2");
		}
		String[] parts = values.split(",", -1);
		if (parts.length > MAX_VALUES) {
			throw new InvalidSumValuesException("'values' must hold at most " + MAX_VALUES + " integers");
		}
		List<Long> parsed = new ArrayList<>(parts.length);
		for (String part : parts) {
			try {
				parsed.add(Long.parseLong(part.strip()));
			}
			catch (NumberFormatException ex) {
				throw new InvalidSumValuesException(
						"'values' must be comma-separated integers; '" + part.strip() + "' is not an integer");
			}
		}
		return parsed;
	}

}
