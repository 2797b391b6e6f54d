package dev.lockstarter.interceptor;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.annotation.OnConflict;
import org.springframework.aop.framework.ProxyFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for {@link ExclusiveRequestMethodValidator}.
 */
class ExclusiveRequestMethodValidatorTests {

	private final ExclusiveRequestMethodValidator validator = new ExclusiveRequestMethodValidator(
			new ExclusiveRequestAttributeSource());

	@Test
	void keepsTheDeclarationsOfVisitedBeansSortedByName() {
		this.validator.postProcessAfterInitialization(new Registrations(), "registrations");
		this.validator.postProcessAfterInitialization(new Object(), "plain");
		assertThat(this.validator.getDeclarations()).satisfiesExactly((sum) -> {
			assertThat(sum.attribute().name()).isEqualTo("sum");
			assertThat(sum.attribute().resultSharing()).isNotNull();
			assertThat(sum.targetClass()).isEqualTo(Registrations.class);
		}, (users) -> {
			assertThat(users.attribute().name()).isEqualTo("users");
			assertThat(users.attribute().keyResolver().expressions()).containsExactly("#userName");
			assertThat(users.describeMethod()).isEqualTo(Registrations.class.getName() + ".register(String)");
		});
		assertThat(this.validator.getResultSharingMethods())
			.containsExactly(Registrations.class.getName() + ".sum(int)");
	}

	@Test
	void aProxiedBeanIsRecordedOnceUnderItsTargetClass() {
		Registrations target = new Registrations();
		this.validator.postProcessAfterInitialization(new ProxyFactory(target).getProxy(), "proxied");
		this.validator.postProcessAfterInitialization(target, "plain");
		assertThat(this.validator.getDeclarations()).hasSize(2)
			.allSatisfy((declaration) -> assertThat(declaration.targetClass()).isEqualTo(Registrations.class));
	}

	@Test
	void anInvalidDeclarationFailsTheBean() {
		assertThatExceptionOfType(InvalidExclusiveRequestException.class)
			.isThrownBy(() -> this.validator.postProcessAfterInitialization(new Invalid(), "invalid"));
		assertThat(this.validator.getDeclarations()).isEmpty();
	}

	static class Registrations {

		@ExclusiveRequest(name = "users", key = "#userName", ttl = "5s")
		public String register(String userName) {
			return userName;
		}

		@ExclusiveRequest(name = "sum", onConflict = OnConflict.SHARE_RESULT)
		public int sum(int value) {
			return value;
		}

		public Duration unannotated() {
			return Duration.ZERO;
		}

	}

	static class Invalid {

		@ExclusiveRequest(ttl = "soon")
		public void run() {
		}

	}

}
