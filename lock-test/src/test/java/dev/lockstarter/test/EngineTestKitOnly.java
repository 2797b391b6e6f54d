package dev.lockstarter.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Marks a test class that is meant to be run only by another test through the JUnit
 * Platform {@code EngineTestKit}, with the {@value #ENABLED} configuration parameter set;
 * for example a contract suite run against a deliberately broken store, which is expected
 * to fail. Anywhere else, such as a full run from an IDE, the class is skipped.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ExtendWith(EngineTestKitOnly.Condition.class)
public @interface EngineTestKitOnly {

	/** The configuration parameter that enables classes with this annotation. */
	String ENABLED = "lockstarter.test.engine-test-kit-only.enabled";

	/**
	 * Enables the class only when {@link #ENABLED} is {@code true}.
	 */
	class Condition implements ExecutionCondition {

		@Override
		public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
			boolean enabled = context.getConfigurationParameter(ENABLED, Boolean::parseBoolean).orElse(false);
			return enabled ? ConditionEvaluationResult.enabled("run through the EngineTestKit")
					: ConditionEvaluationResult.disabled("runs only through the EngineTestKit of another test");
		}

	}

}
