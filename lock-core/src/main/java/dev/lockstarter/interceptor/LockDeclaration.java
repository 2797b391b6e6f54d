package dev.lockstarter.interceptor;

import java.lang.reflect.Method;

import dev.lockstarter.core.Internal;
import org.springframework.util.Assert;

/**
 * One annotated method of a bean, as found by a {@link LockMethodValidator} while the
 * application starts.
 *
 * @param <A> the type of the parsed declaration
 * @param targetClass the class of the bean that declares or inherits the method
 * @param method the annotated method
 * @param attribute the parsed declaration
 * @since 0.1.0
 */
@Internal
public record LockDeclaration<A extends LockAttribute>(Class<?> targetClass, Method method, A attribute) {

	/**
	 * Create a declaration.
	 * @param targetClass the class of the bean that declares or inherits the method
	 * @param method the annotated method
	 * @param attribute the parsed declaration
	 */
	public LockDeclaration {
		Assert.notNull(targetClass, "'targetClass' must not be null");
		Assert.notNull(method, "'method' must not be null");
		Assert.notNull(attribute, "'attribute' must not be null");
	}

	/**
	 * Return the method as {@code ClassName.method(ParamType, ...)}, with the declaring
	 * class's qualified name and the parameters' simple names.
	 * @return the method's description
	 */
	public String describeMethod() {
		return InvalidLockDeclarationException.describe(this.method);
	}

}
