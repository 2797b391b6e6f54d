package dev.lockstarter.key;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.lockstarter.core.InvalidLockKeyException;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
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

	private static final Method OPEN = method("open", Account.class);

	private static final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

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
	void eachExpressionIsAKeyOfItsOwnWithTheKeyOfASingleExpression() {
		MethodKeyResolver resolver = MethodKeyResolver.create(TRANSFER, "account", "#from", "#to");
		assertThat(resolver.resolveEach(new Object[] { "A", "x:y" })).containsExactly("account:A", "account:x\\:y");
		assertThat(resolver.resolveEach(new Object[] { "x:y", "A" }).get(0))
			.isEqualTo(MethodKeyResolver.create(REGISTER, "account", "#userName").resolve(new Object[] { "x:y" }));
		assertThat(resolver.resolveEach(new Object[] { "A", "A" })).as("duplicates are left to the lock")
			.containsExactly("account:A", "account:A");
	}

	@Test
	void eachElementOfACollectionOrArrayIsAKeyOfItsOwn() {
		Method batch = method("batch", List.class, String[].class);
		MethodKeyResolver resolver = MethodKeyResolver.create(batch, "item", "#ids", "#more");
		assertThat(resolver.resolveEach(new Object[] { List.of("1", "2"), new String[] { "3" } }))
			.containsExactly("item:1", "item:2", "item:3");
		assertThat(MethodKeyResolver.create(batch, "item", "#ids")
			.resolveEach(new Object[] { Set.of("only"), new String[0] })).containsExactly("item:only");
		assertThat(MethodKeyResolver.create(batch, "item", "#ids").resolve(new Object[] { List.of("1", "2"), null }))
			.as("without resolveEach a collection stays one composite value")
			.isEqualTo("item:[1, 2]");
	}

	@Test
	void emptyCollectionOrNullOrBlankElementIsRejected() {
		Method batch = method("batch", List.class, String[].class);
		MethodKeyResolver resolver = MethodKeyResolver.create(batch, "item", "#ids");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> resolver.resolveEach(new Object[] { List.of(), null }))
			.withMessageContaining("empty collection");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> resolver.resolveEach(new Object[] { Arrays.asList("1", null), null }))
			.withMessageContaining("null");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> resolver.resolveEach(new Object[] { List.of("1", " "), null }))
			.withMessageContaining("blank");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> resolver.resolveEach(new Object[] { null, null }))
			.withMessageContaining("null");
		assertThatExceptionOfType(InvalidLockKeyException.class)
			.isThrownBy(() -> MethodKeyResolver.create(batch, "item", "#more")
				.resolveEach(new Object[] { null, new String[0] }))
			.withMessageContaining("empty collection");
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

	@Test
	void hintsCoverTheAccessorsAndMethodsThatExpressionsCall() {
		RuntimeHints hints = new RuntimeHints();
		MethodKeyResolver.create(ORDER, "orders", "#order.customer.trim()", "#p0.number()")
			.registerReflectionHints(hints.reflection());
		assertThat(reflection.onMethodInvocation(Order.class, "customer")).accepts(hints);
		assertThat(reflection.onMethodInvocation(String.class, "trim")).accepts(hints);
		assertThat(reflection.onMethodInvocation(Order.class, "number")).accepts(hints);
		assertThat(reflection.onMethodInvocation(Order.class, "toString")).rejects(hints);
		assertThat(reflection.onMethodInvocation(String.class, "strip")).rejects(hints);
	}

	@Test
	void hintsFollowGettersOfBeansThroughTheirReturnTypes() {
		RuntimeHints hints = new RuntimeHints();
		MethodKeyResolver resolver = MethodKeyResolver.create(OPEN, "accounts", "#account.owner.length()",
				"#account.active");
		assertThat(resolver.resolve(new Object[] { new Account() })).isEqualTo("accounts:5:true");
		resolver.registerReflectionHints(hints.reflection());
		assertThat(reflection.onMethodInvocation(Account.class, "getOwner")).accepts(hints);
		assertThat(reflection.onMethodInvocation(String.class, "length")).accepts(hints);
		assertThat(reflection.onMethodInvocation(Account.class, "isActive")).accepts(hints);
		assertThat(reflection.onMethodInvocation(Account.class, "owner")).rejects(hints);
	}

	@Test
	void plainParameterReferencesAndUnknownTypesNeedNoHints() {
		RuntimeHints hints = new RuntimeHints();
		MethodKeyResolver.create(ORDER, "orders", "#order", "#p0", "#args[0].customer")
			.registerReflectionHints(hints.reflection());
		assertThat(hints.reflection().typeHints()).isEmpty();
	}

	private static Method method(String name, Class<?>... types) {
		return ReflectionUtils.findMethod(Targets.class, name, types);
	}

	record Order(String customer, int number) {
	}

	public static class Account {

		public String getOwner() {
			return "alice";
		}

		public String owner() {
			return "bob";
		}

		public boolean isActive() {
			return true;
		}

	}

	static class Targets {

		void register(String userName) {
		}

		void transfer(String from, String to) {
		}

		void batch(List<String> ids, String[] more) {
		}

		void order(Order order) {
		}

		void open(Account account) {
		}

	}

}
