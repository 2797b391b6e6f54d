package dev.lockstarter.autoconfigure;

import java.time.Duration;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.LockOptions;
import org.springframework.util.Assert;

/**
 * The {@link LockOptions} of a declaration that sets none of its own, made from
 * {@code lock.ttl}, {@code lock.wait-time}, {@code lock.renew} and {@code lock.max-hold}.
 * <p>
 * Asked on every call of such a method: the same instance is returned until one of those
 * properties changes (a rebinding of {@link LockProperties}), so that each method's
 * resolved options stay cached.
 *
 * @since 0.1.0
 */
@Internal
public final class DefaultLockOptions implements Supplier<LockOptions> {

	private final LockProperties properties;

	private volatile @Nullable Made made;

	/**
	 * Create the default options of the given properties.
	 * @param properties the bound lock properties
	 */
	public DefaultLockOptions(LockProperties properties) {
		Assert.notNull(properties, "'properties' must not be null");
		this.properties = properties;
	}

	@Override
	public LockOptions get() {
		Duration ttl = this.properties.getTtl();
		Duration waitTime = this.properties.getWaitTime();
		boolean renew = this.properties.isRenew();
		Duration maxHold = this.properties.getMaxHold();
		Made made = this.made;
		if (made != null && made.ttl == ttl && made.waitTime == waitTime && made.renew == renew
				&& made.maxHold == maxHold) {
			return made.options;
		}
		boolean limited = !maxHold.isZero() && !maxHold.isNegative();
		LockOptions options = LockOptions.ttl(ttl)
			.withWaitTime(waitTime)
			.withRenewal(renew)
			.withMaxHold(limited ? maxHold : null);
		this.made = new Made(ttl, waitTime, renew, maxHold, options);
		return options;
	}

	/** The options and the property values they were made of. */
	private record Made(Duration ttl, Duration waitTime, boolean renew, Duration maxHold, LockOptions options) {

	}

}
