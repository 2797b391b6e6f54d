package dev.lockstarter.store.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import io.etcd.jetcd.ByteSequence;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock values of the etcd store: an owner token and a time-to-live, never a point in
 * time.
 */
class EtcdValuesTests {

	@Test
	void lockValueHoldsTheTokenAndTheTimeToLive() {
		ByteSequence value = EtcdValues.lockValue("owner-é", 2500);
		assertThat(value.getBytes()).hasSize("owner-é".getBytes(StandardCharsets.UTF_8).length + 1 + EtcdValues.DIGITS);
		assertThat(EtcdValues.owner(value)).isEqualTo("owner-é");
		assertThat(EtcdValues.ttl(value)).isEqualTo(Duration.ofMillis(2500));
		assertThat(EtcdValues.isOwnedBy(value, "owner-é")).isTrue();
		assertThat(EtcdValues.isOwnedBy(value, "owner-")).isFalse();
	}

	@Test
	void valueOfAnEarlierVersionWithAnExpiryTimeReadsAsATimeToLiveOfDecades() {
		ByteSequence legacy = EtcdValues.lockValue("owner", 1_790_000_000_000L);
		assertThat(EtcdValues.ttl(legacy)).isGreaterThan(Duration.ofDays(50 * 365))
			.isLessThanOrEqualTo(EtcdValues.MAX_TTL);
		assertThat(EtcdValues.ttl(EtcdValues.lockValue("owner", 9_999_999_999_999_999L))).isEqualTo(EtcdValues.MAX_TTL);
	}

	@Test
	void valueWithoutAReadableTimeToLiveReadsAsZero() {
		assertThat(EtcdValues.ttl(ByteSequence.from("no-separator", StandardCharsets.UTF_8))).isZero();
		assertThat(EtcdValues.owner(ByteSequence.from("no-separator", StandardCharsets.UTF_8)))
			.isEqualTo("no-separator");
		assertThat(EtcdValues.ttl(ByteSequence.from("owner" + '\0' + "000000000000000x", StandardCharsets.UTF_8)))
			.as("a value whose time-to-live is not all digits")
			.isZero();
		assertThat(EtcdValues.ttl(ByteSequence.from("owner" + '\0' + "123", StandardCharsets.UTF_8)))
			.as("a value whose time-to-live is too short")
			.isZero();
	}

	@Test
	void timeToLiveIsWrittenInWholeMillisecondsRoundedUp() {
		assertThat(EtcdLockStore.millis(Duration.ofNanos(1))).isOne();
		assertThat(EtcdLockStore.millis(Duration.ofMillis(2000))).isEqualTo(2000);
		assertThat(EtcdLockStore.millis(Duration.ofNanos(2_000_000_001))).isEqualTo(2001);
	}

}
