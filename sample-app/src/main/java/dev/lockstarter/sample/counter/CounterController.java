package dev.lockstarter.sample.counter;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The counter API: increments with and without the lock, and reads.
 *
 * @since 0.1.0
 */
@RestController
public class CounterController {

	private final CounterService counters;

	/**
	 * Create a new controller.
	 * @param counters the counter service
	 */
	public CounterController(CounterService counters) {
		this.counters = counters;
	}

	/**
	 * Increment a counter under its lock, waiting for the lock.
	 * @param name the counter's name
	 * @return the counter after the increment
	 */
	@PostMapping("/api/counters/{name}/increment")
	public Counter increment(@PathVariable String name) {
		return this.counters.increment(name);
	}

	/**
	 * Increment a counter without a lock.
	 * @param name the counter's name
	 * @return the counter after the increment
	 */
	@PostMapping("/api/unsafe/counters/{name}/increment")
	public Counter incrementUnsafe(@PathVariable String name) {
		return this.counters.incrementUnsafe(name);
	}

	/**
	 * Read a counter.
	 * @param name the counter's name
	 * @return the counter
	 */
	@GetMapping("/api/counters/{name}")
	public Counter get(@PathVariable String name) {
		return this.counters.get(name);
	}

}
