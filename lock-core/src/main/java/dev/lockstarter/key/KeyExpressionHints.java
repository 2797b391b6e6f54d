package dev.lockstarter.key;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.core.ResolvableType;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.util.StringUtils;

/**
 * Registers the methods that a parsed key expression calls reflectively: in a chain such
 * as {@code #request.customer.id} or {@code #name.toLowerCase()} that starts at a method
 * parameter, each property read through its getter (as SpEL's
 * {@code ReflectivePropertyAccessor} finds it: {@code getX()}, {@code isX()}, then a
 * record-style {@code x()}) and each instance method called by name. The type of each
 * step is the declared type of the previous one; a chain stops at a step whose type is
 * unknown ({@code Object}, a type variable, an indexer).
 */
final class KeyExpressionHints {

	private KeyExpressionHints() {
	}

	/**
	 * Register the hints of one expression.
	 * @param hints the hints to contribute to
	 * @param ast the root of the parsed expression
	 * @param variableType the declared type of a variable by name, or {@code null} if the
	 * variable does not stand for a single parameter
	 */
	static void register(ReflectionHints hints, SpelNode ast, Function<String, @Nullable Class<?>> variableType) {
		if (ast instanceof CompoundExpression) {
			registerChain(hints, ast, variableType);
		}
		for (int i = 0; i < ast.getChildCount(); i++) {
			register(hints, ast.getChild(i), variableType);
		}
	}

	private static void registerChain(ReflectionHints hints, SpelNode chain,
			Function<String, @Nullable Class<?>> variableType) {
		SpelNode first = chain.getChild(0);
		Class<?> type = (first instanceof VariableReference) ? variableType.apply(first.toStringAST().substring(1))
				: null;
		for (int i = 1; i < chain.getChildCount() && type != null && type != Object.class; i++) {
			SpelNode step = chain.getChild(i);
			if (step instanceof PropertyOrFieldReference property) {
				type = registerGetter(hints, type, property.getName());
			}
			else if (step instanceof MethodReference method) {
				type = registerMethods(hints, type, method.getName(), method.getChildCount());
			}
			else {
				type = null;
			}
		}
	}

	private static @Nullable Class<?> registerGetter(ReflectionHints hints, Class<?> type, String property) {
		Method getter = findGetter(type, property);
		if (getter == null) {
			return null;
		}
		hints.registerMethod(getter, ExecutableMode.INVOKE);
		return ResolvableType.forMethodReturnType(getter, type).resolve();
	}

	private static @Nullable Method findGetter(Class<?> type, String property) {
		String suffix = (property.length() > 1 && Character.isUpperCase(property.charAt(1))) ? property
				: StringUtils.capitalize(property);
		List<String> suffixes = Character.isUpperCase(suffix.charAt(0)) ? List.of(suffix)
				: List.of(suffix, StringUtils.capitalize(suffix));
		Method getter = findAccessor(type, suffixes, "get", false);
		if (getter == null) {
			getter = findAccessor(type, suffixes, "is", true);
		}
		if (getter == null) {
			getter = findAccessor(type, List.of(property), "", false);
		}
		return getter;
	}

	private static @Nullable Method findAccessor(Class<?> type, List<String> suffixes, String prefix,
			boolean booleanOnly) {
		for (String suffix : suffixes) {
			for (Method method : type.getMethods()) {
				Class<?> returnType = method.getReturnType();
				if (!method.isBridge() && method.getName().equals(prefix + suffix) && method.getParameterCount() == 0
						&& returnType != void.class
						&& (!booleanOnly || returnType == boolean.class || returnType == Boolean.class)) {
					return method;
				}
			}
		}
		return null;
	}

	private static @Nullable Class<?> registerMethods(ReflectionHints hints, Class<?> type, String name,
			int argumentCount) {
		List<Class<?>> returnTypes = new ArrayList<>();
		for (Method method : type.getMethods()) {
			if (!method.isBridge() && !Modifier.isStatic(method.getModifiers()) && method.getName().equals(name)
					&& (method.getParameterCount() == argumentCount
							|| (method.isVarArgs() && method.getParameterCount() - 1 <= argumentCount))) {
				hints.registerMethod(method, ExecutableMode.INVOKE);
				Class<?> returnType = ResolvableType.forMethodReturnType(method, type).resolve();
				if (!returnTypes.contains(returnType)) {
					returnTypes.add(returnType);
				}
			}
		}
		return (returnTypes.size() == 1) ? returnTypes.get(0) : null;
	}

}
