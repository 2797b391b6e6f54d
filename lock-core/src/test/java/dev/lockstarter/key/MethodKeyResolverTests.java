package dev.lockstarter.key;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.InvalidLockKeyException;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link MethodKeyResolver}.
 */
class MethodKeyResolverTests {

	private static final Method REGISTER = method("register", String.class);

	private static final Method TRANSFER = method("transfer", String.class, String.class);

	private static final Method ORDER = method("order", Order.class);

	@Test
	void parameterByNameBecomesTheKeyValue() {
		assertThat(MethodKeyResolver.create(REGISTER, "users", "#userName").resolve(new Object[] { "alice" }))
			.isEqualTo("users:alice");
	}

	@Test
	void parametersByPositionAndPropertyPathsAreSupported() {
		assertThat(MethodKeyResolver.create(REGISTER, "users", "#p0").resolve(new Object[] { "alice" }))
			.isEqualTo("users:alice");
		assertThat(MethodKeyResolver.create(REGISTER, "users", "#a0").resolve(new Object[] { "alice" }))
			.isEqualTo("users:alice");
		assertThat(MethodKeyResolver.create(ORDER, "orders", "#order.customer", "#order.number()")
			.resolve(new Object[] { new Order("bob", 42) })).isEqualTo("orders:bob:42");
		assertThat(MethodKeyResolver.create(REGISTER, "users", "#userName.toUpperCase()")
			.resolve(new Object[] { "alice" })).isEqualTo("users:ALICE");
	}

	@Test
	void expressionsAreReportedAsDeclared() {
		assertThat(MethodKeyResolver.create(ORDER, "orders", "#order.customer", "#order.number()").expressions())
			.containsExactly("#order.customer", "#order.number()");
		assertThat(MethodKeyResolver.create(REGISTER, "users").expressions()).isEmpty();
	}

	@Test
	void withoutExpressionsTheNameAloneIsTheKey() {
		assertThat(MethodKeyResolver.create(REGISTER, "nightly-job").resolve(new Object[] { "x" }))
			.isEqualTo("nightly-job");
	}

	@Test
	void distinctArgumentTuplesNeverShareAKey() {
		MethodKeyResolver resolver = MethodKeyResolver.create(TRANSFER, "t", "#from", "#to");
		String first = resolver.resolve(new Object[] { "x:y", "z" });
		String second = resolver.resolve(new Object[] { "x", "y:z" });
		String third = resolver.resolve(new Object[] { "x\\", ":z" });
		String fourth = resolver.resolve(new Object[] { "x\\:", "z" });
		assertThat(first).isEqualTo("t:x\\:y:z");
		assertThat(second).isEqualTo("t:x:y\\:z");
		assertThat(new String[] { first, second, third, fourth }).doesNotHaveDuplicates();
	}

	@Test
	void argumentValuesAreNeverEvaluated() {
		MethodKeyResolver resolver = MethodKeyResolver.create(REGISTER, "users", "#userName");
		String payload = "T(java.lang.Runtime).getRuntime().exec('touch /tmp/x')";
		assertThat(resolver.resolve(new Object[] { payload })).isEqualTo("users:" + payload.replace(":", "\\:"));
		MethodKeyResolver spel = MethodKeyResolver.create(REGISTER, "users", "#userName.trim()");
		assertThat(spel.resolve(new Object[] { "#{" + payload + "}" })).isEqualTo("users:#{" + payload + "}");
	}

	@Test
	void expressionsCannotReachTypesOrConstructors() {
		MethodKeyResolver resolver = MethodKeyResolver.create(REGISTER, "users", "T(java.lang.System).getenv()");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> resolver.resolve(new Object[] { "alice" }))
			.withMessageContaining("could not be evaluated");
		MethodKeyResolver constructor = MethodKeyResolver.create(REGISTER, "users", "new java.io.File('/tmp/x')");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> constructor.resolve(new Object[] { "alice" }));
	}

	@Test
	void nullValueIsRejected() {
		MethodKeyResolver resolver = MethodKeyResolver.create(REGISTER, "users", "#userName");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> resolver.resolve(new Object[] { null }))
			.withMessageContaining("'#userName'")
			.withMessageContaining("evaluated to null")
			.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("users"));
	}

	@Test
	void blankValueIsRejected() {
		MethodKeyResolver resolver = MethodKeyResolver.create(REGISTER, "users", "#userName");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> resolver.resolve(new Object[] { " \t" }))
			.withMessageContaining("blank");
	}

	@Test
	void navigatingThroughNullIsRejected() {
		MethodKeyResolver resolver = MethodKeyResolver.create(ORDER, "orders", "#order.customer");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> resolver.resolve(new Object[] { null }));
	}

	@Test
	void unparsableExpressionIsRejectedAtCreation() {
		assertThatIllegalArgumentException().isThrownBy(() -> MethodKeyResolver.create(REGISTER, "users", "#userName."))
			.withMessageContaining("cannot be parsed");
	}

	@Test
	void unknownVariableIsRejectedAtCreation() {
		assertThatIllegalArgumentException().isThrownBy(() -> MethodKeyResolver.create(REGISTER, "users", "#user"))
			.withMessageContaining("'#user'")
			.withMessageContaining("userName");
	}

	@Test
	void blankExpressionIsRejectedAtCreation() {
		assertThatIllegalArgumentException().isThrownBy(() -> MethodKeyResolver.create(REGISTER, "users", " "));
	}

	private static Method method(String name, Class<?>... types) {
		return ReflectionUtils.findMethod(Targets.class, name, types);
	}

	record Order(String customer, int number) {
	}

	static class Targets {

		void register(String userName) {
		}

		void transfer(String from, String to) {
		}

		void order(Order order) {
		}

	}

}
