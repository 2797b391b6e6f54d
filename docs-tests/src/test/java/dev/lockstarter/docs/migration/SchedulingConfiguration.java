package dev.lockstarter.docs.migration;

import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * What remains of a ShedLock configuration class: scheduling on, nothing else.
 */
// tag::configuration[]
@Configuration
@EnableScheduling
public class SchedulingConfiguration {

}
// end::configuration[]
