package dev.lockstarter.core;

import java.util.ArrayList;
import java.util.List;

/**
 * What an acquisition's {@link Grant} becomes: a lease this JVM holds, or one it hands to
 * an owner outside it.
 */
enum LeaseKind {

	/**
	 * A {@link StoreLease} per key (a {@link MultiStoreLease} over several), listed as
	 * held, told to the listeners, renewed as the options say, and lost at its local
	 * deadline.
	 */
	HELD {

		@Override
		Lease lease(Grant grant, LeaseServices services) {
			List<String> keys = grant.keys();
			LossMargin lossMargin = services.lossMargin().get();
			List<StoreLease> parts = new ArrayList<>(keys.size());
			for (int i = 0; i < keys.size(); i++) {
				parts.add(new StoreLease(services.events(), grant.store(), keys.get(i), grant.storeKeys().get(i),
						grant.token(), grant.fencingTokens().get(i), grant.options(), grant.sentAt(), lossMargin));
			}
			for (StoreLease part : parts) {
				services.events().acquired(part);
			}
			LeaseRenewer renewer = grant.options().isRenew() ? services.renewer() : null;
			parts.forEach((part) -> part.timeWith(services.deadlines(), renewer));
			return (parts.size() == 1) ? parts.get(0) : new MultiStoreLease(grant.store(), parts);
		}

	},

	/**
	 * A {@link DetachedLease} on one key, owned by whoever has its owner token: neither
	 * listed, nor renewed.
	 */
	DETACHED {

		@Override
		Lease lease(Grant grant, LeaseServices services) {
			return new DetachedLease(grant.store(), grant.keys().get(0), grant.storeKeys().get(0), grant.token(),
					grant.fencingTokens().get(0), grant.sentAt(), grant.options().getTtl(),
					services.lossMargin().get());
		}

	};

	/**
	 * Make the lease of an acquisition that was granted every key.
	 * @param grant what the acquisition was granted
	 * @param services what the lease works with
	 * @return the lease
	 */
	abstract Lease lease(Grant grant, LeaseServices services);

}
