package dev.lockstarter.docs.singleflight;

/**
 * Asks an external API for quotes.
 */
public interface QuoteClient {

	Quote fetch(String symbol);

}
