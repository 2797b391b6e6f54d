package dev.lockstarter.test;

import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

/**
 * Runs a suite's tests through the JUnit Platform {@code EngineTestKit}, with the classes
 * marked {@link EngineTestKitOnly} enabled: how the negative controls run a contract
 * against a flawed store and read what passed and what failed.
 */
public final class EngineTestKitRuns {

	private EngineTestKitRuns() {
	}

	/**
	 * Run one test method of a suite.
	 * @param suite the suite's class
	 * @param test the method's name
	 * @return the events of the run's tests
	 */
	public static Events run(Class<?> suite, String test) {
		return run(selectMethod(suite, test));
	}

	/**
	 * Run what a selector selects.
	 * @param selector the selector
	 * @return the events of the run's tests
	 */
	public static Events run(DiscoverySelector selector) {
		return EngineTestKit.engine("junit-jupiter")
			.configurationParameter(EngineTestKitOnly.ENABLED, "true")
			.selectors(selector)
			.execute()
			.testEvents();
	}

}
