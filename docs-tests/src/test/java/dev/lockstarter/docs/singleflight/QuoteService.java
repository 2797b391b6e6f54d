package dev.lockstarter.docs.singleflight;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import dev.lockstarter.annotation.OnHolderFailure;
import org.springframework.stereotype.Service;

/**
 * A call to a paid external API, shared by simultaneous callers, retried by a follower
 * when it fails.
 */
@Service
public class QuoteService {

	private final QuoteClient client;

	public QuoteService(QuoteClient client) {
		this.client = client;
	}

	// tag::options[]
	@ExclusiveRequest(key = "#symbol", onConflict = OnConflict.SHARE_RESULT, waitTime = "20s", resultTtl = "5s",
			onHolderFailure = OnHolderFailure.TAKE_OVER)
	public Quote quote(String symbol) {
		return this.client.fetch(symbol);
	}
	// end::options[]

}
