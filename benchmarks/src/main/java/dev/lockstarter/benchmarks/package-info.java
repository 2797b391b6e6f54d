/**
 * JMH benchmarks: the uncontended acquire + release cycle against a real Redis server,
 * for this starter and for peer libraries on the same server, and the cost of the
 * {@link dev.lockstarter.annotation.ExclusiveRequest} interceptor. Run with
 * {@code benchmarks/run.sh}; the results are in {@code docs/PERFORMANCE.md}.
 */
@NullMarked
package dev.lockstarter.benchmarks;

import org.jspecify.annotations.NullMarked;
