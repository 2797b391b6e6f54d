package dev.lockstarter.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.LockOptions;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DefaultLockOptions}.
 */
class DefaultLockOptionsTests {

	private final LockProperties properties = new LockProperties();

	private final DefaultLockOptions defaults = new DefaultLockOptions(this.properties);

	@Test
	void optionsAreMadeOfTheLockProperties() {
		this.properties.setTtl(Duration.ofSeconds(5));
		this.properties.setWaitTime(Duration.ofMillis(200));
		this.properties.setRenew(false);
		this.properties.setMaxHold(Duration.ofMinutes(2));
		LockOptions options = this.defaults.get();
		assertThat(options.getTtl()).isEqualTo(Duration.ofSeconds(5));
		assertThat(options.getWaitTime()).isEqualTo(Duration.ofMillis(200));
		assertThat(options.isRenew()).isFalse();
		assertThat(options.getMaxHold()).isEqualTo(Duration.ofMinutes(2));
	}

	@Test
	void zeroOrNegativeMaxHoldMeansNoLimit() {
		this.properties.setMaxHold(Duration.ZERO);
		assertThat(this.defaults.get().getMaxHold()).isNull();
		this.properties.setMaxHold(Duration.ofSeconds(-1));
		assertThat(this.defaults.get().getMaxHold()).isNull();
	}

	@Test
	void sameInstanceIsReturnedUntilAPropertyIsRebound() {
		LockOptions first = this.defaults.get();
		assertThat(this.defaults.get()).isSameAs(first);
		this.properties.setTtl(Duration.ofSeconds(45));
		LockOptions rebound = this.defaults.get();
		assertThat(rebound).isNotSameAs(first);
		assertThat(rebound.getTtl()).isEqualTo(Duration.ofSeconds(45));
		assertThat(this.defaults.get()).isSameAs(rebound);
	}

}
