package dev.lockstarter.interceptor;

import dev.lockstarter.core.Internal;

/**
 * Finds and parses {@link dev.lockstarter.annotation.ExclusiveJob} declarations, once per
 * method and target class, and caches the result. Parsing validates the declaration; a
 * problem is reported as an {@link InvalidExclusiveJobException} naming the method and
 * the attribute.
 * <p>
 * Without an explicit {@link dev.lockstarter.annotation.ExclusiveJob#holdAtLeast()
 * holdAtLeast}, the minimum hold time is half the shortest period of the method's
 * {@link org.springframework.scheduling.annotation.Scheduled @Scheduled} declarations:
 * its {@code fixedRate} or {@code fixedDelay}, or the shortest gap between the next
 * firings of its {@code cron} expression.
 *
 * @since 0.1.0
 */
@Internal
public class ExclusiveJobAttributeSource extends LockAttributeSource<ExclusiveJobAttribute> {

	/**
	 * Create a new source.
	 */
	public ExclusiveJobAttributeSource() {
		super(new ExclusiveJobAnnotationParser());
	}

}
