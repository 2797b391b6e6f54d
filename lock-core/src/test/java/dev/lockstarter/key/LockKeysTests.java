package dev.lockstarter.key;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.lockstarter.annotation.ExclusiveRequest;
import dev.lockstarter.core.InvalidLockKeyException;
import dev.lockstarter.core.Lease;
import dev.lockstarter.core.LockConflictException;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.interceptor.ExclusiveRequestAdvisor;
import dev.lockstarter.interceptor.ExclusiveRequestAttributeSource;
import dev.lockstarter.interceptor.ExclusiveRequestInterceptor;
import dev.lockstarter.store.memory.InMemoryLockStore;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Tests for {@link LockKeys}: the keys it builds are the keys of
 * {@code @ExclusiveRequest}, byte for byte, so an annotated method and a programmatic
 * caller of one resource exclude each other whatever the values hold.
 */
class LockKeysTests {

	private static final Duration TTL = Duration.ofSeconds(30);

	/**
	 * Values that a key must keep apart, each given to the annotation and the builder.
	 */
	private static final List<Object> TRICKY = List.of("a", ":", "\\", "a:b", "a\\:b", "a\\", "::", "\\:", "\\\\",
			"a:b\\", " a : b ", "ü€𝄞:\\", "line\nbreak", 42, -7L, 4.25, new Point(1, 2),
			UUID.fromString("0f0e0d0c-0b0a-0908-0706-050403020100"), List.of("x:y", "z"));

	/** Values that name no lock, rejected by the annotation and the builder alike. */
	private static final List<Object> NAMING_NO_LOCK = Arrays.asList(null, "", " ", "\t\n", new Text(""),
			new Text(null));

	private static final Method ONE = method("one", Object.class);

	private static final Method TWO = method("two", Object.class, Object.class);

	private static final Method THREE = method("three", Object.class, Object.class, Object.class);

	private final LockTemplate locks = new LockTemplate(new InMemoryLockStore(), "lock:");

	@AfterEach
	void destroy() {
		this.locks.destroy();
	}

	@Test
	void annotatedMethodAndProgrammaticCallerOfOneResourceExcludeEachOther() {
		Users users = proxy(new Users(this.locks, (id) -> LockKeys.of("user", id)));
		for (Object id : TRICKY) {
			assertThat(users.programmaticCallerGetsInWhileTheMethodRuns(id))
				.as("a programmatic caller of user %s got in while the annotated method ran", id)
				.isFalse();
			try (Lease lease = this.locks.acquire(LockKeys.of("user", id), TTL)) {
				assertThatExceptionOfType(LockConflictException.class)
					.as("the annotated method of user %s while a programmatic caller holds it", id)
					.isThrownBy(() -> users.programmaticCallerGetsInWhileTheMethodRuns(id));
			}
		}
	}

	@Test
	void handConcatenatedKeyIsAnotherLockWhenTheValueHoldsAColonOrABackslash() {
		Users users = proxy(new Users(this.locks, (id) -> "user:" + id));
		assertThat(users.programmaticCallerGetsInWhileTheMethodRuns("42")).as("no colon, no backslash: one key")
			.isFalse();
		assertThat(users.programmaticCallerGetsInWhileTheMethodRuns("a:b")).as("a colon: two keys").isTrue();
		assertThat(users.programmaticCallerGetsInWhileTheMethodRuns("a\\b")).as("a backslash: two keys").isTrue();
	}

	@Test
	void oneValueGivesTheKeyOfOneKeyExpression() {
		MethodKeyResolver resolver = MethodKeyResolver.create(ONE, "user", "#a");
		for (Object value : TRICKY) {
			assertThat(LockKeys.of("user", value)).as("key of %s", value)
				.isEqualTo(resolver.resolve(new Object[] { value }));
		}
	}

	@Test
	void severalValuesGiveTheKeyOfAsManyKeyExpressions() {
		MethodKeyResolver two = MethodKeyResolver.create(TWO, "order", "#a", "#b");
		MethodKeyResolver three = MethodKeyResolver.create(THREE, "order", "#a", "#b", "#c");
		for (Object first : TRICKY) {
			for (Object second : TRICKY) {
				assertThat(LockKeys.of("order", first, second)).as("key of (%s, %s)", first, second)
					.isEqualTo(two.resolve(new Object[] { first, second }));
				assertThat(LockKeys.of("order", first, second, first)).as("key of (%s, %s, %s)", first, second, first)
					.isEqualTo(three.resolve(new Object[] { first, second, first }));
			}
		}
	}

	@Test
	void distinctValuesNeverShareAKey() {
		List<String> keys = TRICKY.stream()
			.flatMap((first) -> TRICKY.stream().map((second) -> LockKeys.of("order", first, second)))
			.toList();
		assertThat(keys).doesNotHaveDuplicates();
		assertThat(LockKeys.of("order", "x:y", "z")).isNotEqualTo(LockKeys.of("order", "x", "y:z"))
			.isNotEqualTo(LockKeys.of("order", "x:y:z"));
	}

	@Test
	void eachValueGivesTheKeyThatEachKeyGivesIt() {
		MethodKeyResolver each = MethodKeyResolver.create(TWO, "account", "#a", "#b");
		for (Object value : TRICKY) {
			List<String> expected = new ArrayList<>();
			if (value instanceof List<?> elements) {
				// eachKey: one key per element of a collection
				elements.forEach((element) -> expected.add(LockKeys.of("account", element)));
			}
			else {
				expected.add(LockKeys.of("account", value));
			}
			expected.add(LockKeys.of("account", "B"));
			assertThat(each.resolveEach(new Object[] { value, "B" })).isEqualTo(expected);
		}
	}

	/** The same keys as the lock server's Python client's {@code LockKeyTests}. */
	@Test
	void knownValuesGiveKnownKeys() {
		assertThat(LockKeys.of("user", "42")).isEqualTo("user:42");
		assertThat(LockKeys.of("user", "a:b")).isEqualTo("user:a\\:b");
		assertThat(LockKeys.of("user", "a\\:b")).isEqualTo("user:a\\\\\\:b");
		assertThat(LockKeys.of("user", "\\")).isEqualTo("user:\\\\");
		assertThat(LockKeys.of("user", "\u00fc\u20ac\ud834\udd1e:")).isEqualTo("user:\u00fc\u20ac\ud834\udd1e\\:");
		assertThat(LockKeys.of("order", "x:y", "z")).isEqualTo("order:x\\:y:z");
		assertThat(LockKeys.of("order", "x", "y:z")).isEqualTo("order:x:y\\:z");
		assertThat(LockKeys.of("a:b", "c")).isEqualTo("a:b:c");
		assertThat(LockKeys.of("report")).isEqualTo("report");
	}

	@Test
	void noValueGivesTheNameAloneAsAMethodWithoutKeyExpressions() {
		assertThat(LockKeys.of("report:daily")).isEqualTo("report:daily")
			.isEqualTo(MethodKeyResolver.create(ONE, "report:daily").resolve(new Object[] { "ignored" }));
	}

	@Test
	void nameIsUsedAsGiven() {
		assertThat(LockKeys.of("a:b\\", "c")).isEqualTo("a:b\\:c")
			.isEqualTo(MethodKeyResolver.create(ONE, "a:b\\", "#a").resolve(new Object[] { "c" }));
	}

	@Test
	void nullOrBlankValueIsRejectedAsTheAnnotationRejectsIt() {
		MethodKeyResolver resolver = MethodKeyResolver.create(ONE, "user", "#a");
		MethodKeyResolver two = MethodKeyResolver.create(TWO, "user", "#a", "#b");
		for (Object value : NAMING_NO_LOCK) {
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> resolver.resolve(new Object[] { value }));
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> LockKeys.of("user", value))
				.satisfies((ex) -> assertThat(ex.getLockName()).isEqualTo("user"))
				.withMessage("Key value 0 of lock 'user' is %s, which names no lock",
						(value == null || value.toString() == null) ? "null" : "blank");
			assertThatExceptionOfType(InvalidLockKeyException.class)
				.isThrownBy(() -> two.resolve(new Object[] { "a", value }));
			assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> LockKeys.of("user", "a", value))
				.withMessageStartingWith("Key value 1 of lock 'user'");
		}
	}

	@Test
	void singleNullArgumentIsOneNullValue() {
		assertThatExceptionOfType(InvalidLockKeyException.class).isThrownBy(() -> LockKeys.of("user", (Object[]) null))
			.withMessage("Key value 0 of lock 'user' is null, which names no lock");
	}

	@Test
	void blankNameIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> LockKeys.of(" ", "a"))
			.withMessage("'name' must not be blank");
	}

	private <T> T proxy(T target) {
		ExclusiveRequestAttributeSource attributeSource = new ExclusiveRequestAttributeSource();
		ExclusiveRequestInterceptor interceptor = new ExclusiveRequestInterceptor(attributeSource, () -> this.locks,
				() -> LockOptions.ttl(TTL));
		ProxyFactory factory = new ProxyFactory(target);
		factory.setProxyTargetClass(true);
		factory.addAdvisor(new ExclusiveRequestAdvisor(attributeSource, interceptor));
		@SuppressWarnings("unchecked")
		T proxy = (T) factory.getProxy();
		return proxy;
	}

	private static Method method(String name, Class<?>... parameterTypes) {
		Method method = ReflectionUtils.findMethod(Keys.class, name, parameterTypes);
		assertThat(method).isNotNull();
		return method;
	}

	static class Users {

		private final LockTemplate locks;

		private final Function<Object, String> programmaticKey;

		Users(LockTemplate locks, Function<Object, String> programmaticKey) {
			this.locks = locks;
			this.programmaticKey = programmaticKey;
		}

		/**
		 * Try the key a programmatic caller builds for the same user while this method
		 * holds the annotation's lock (locks are not reentrant, so a free key means two
		 * locks).
		 */
		@ExclusiveRequest(name = "user", key = "#id")
		boolean programmaticCallerGetsInWhileTheMethodRuns(Object id) {
			return this.locks.tryAcquire(this.programmaticKey.apply(id), TTL).isAcquired();
		}

	}

	/** Methods whose parameters the key expressions read. */
	interface Keys {

		void one(Object a);

		void two(Object a, Object b);

		void three(Object a, Object b, Object c);

	}

	/** A value whose {@code toString()} is given. */
	record Text(String text) {

		@Override
		public String toString() {
			return this.text;
		}

	}

	record Point(int x, int y) {

		@Override
		public String toString() {
			return this.x + ":" + this.y;
		}

	}

}
