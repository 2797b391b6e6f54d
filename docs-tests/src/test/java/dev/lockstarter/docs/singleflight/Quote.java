package dev.lockstarter.docs.singleflight;

import java.math.BigDecimal;

/**
 * A price quote.
 *
 * @param symbol the symbol
 * @param price the price
 */
public record Quote(String symbol, BigDecimal price) {

}
