/**
 * Fault injection for failure tests: {@link dev.lockstarter.test.fault.FaultProxy}, a TCP
 * proxy that adds latency, blackholes, drops replies or refuses connections between a
 * client and a real server.
 */
@NullMarked
package dev.lockstarter.test.fault;

import org.jspecify.annotations.NullMarked;
