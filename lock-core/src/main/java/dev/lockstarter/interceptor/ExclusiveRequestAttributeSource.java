package dev.lockstarter.interceptor;

import dev.lockstarter.core.Internal;

/**
 * Finds and parses {@link dev.lockstarter.annotation.ExclusiveRequest} declarations, once
 * per method and target class, and caches the result. Parsing validates the declaration;
 * a problem is reported as an {@link InvalidExclusiveRequestException} naming the method.
 *
 * @since 0.1.0
 */
@Internal
public class ExclusiveRequestAttributeSource extends LockAttributeSource<ExclusiveRequestAttribute> {

	/**
	 * Create a new source.
	 */
	public ExclusiveRequestAttributeSource() {
		super(new ExclusiveRequestAnnotationParser());
	}

}
