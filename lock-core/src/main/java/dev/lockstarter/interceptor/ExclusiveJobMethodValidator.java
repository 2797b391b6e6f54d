package dev.lockstarter.interceptor;

import dev.lockstarter.core.Internal;

/**
 * The {@link LockMethodValidator} of {@link dev.lockstarter.annotation.ExclusiveJob}
 * declarations.
 *
 * @since 0.1.0
 */
@Internal
public class ExclusiveJobMethodValidator extends LockMethodValidator<ExclusiveJobAttribute> {

	/**
	 * Create a new validator.
	 * @param attributeSource the source that parses and caches declarations
	 */
	public ExclusiveJobMethodValidator(ExclusiveJobAttributeSource attributeSource) {
		super(attributeSource);
	}

}
