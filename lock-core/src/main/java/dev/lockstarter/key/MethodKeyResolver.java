package dev.lockstarter.key;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

import dev.lockstarter.core.Internal;
import dev.lockstarter.core.InvalidLockKeyException;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.KotlinDetector;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;
import org.springframework.util.Assert;
import org.springframework.util.StringUtils;

/**
 * Builds the lock key of one method from its arguments. Created once per method, at
 * startup; {@link #resolve(Object[])} runs on every call.
 * <p>
 * The key is {@code name + ":" + value}, where the value joins the expressions' results
 * with {@code ':'}, each result escaped ({@code '\'} becomes {@code "\\"} and {@code ':'}
 * becomes {@code "\:"}), so distinct argument tuples never produce the same key: the key
 * that {@link LockKeys#of(String, Object...)} builds from the name and the results. With
 * {@link #resolveEach(Object[])}, each expression's result is a key of its own instead,
 * {@code name + ":" + value}, and a result that is a {@link Collection} or an array gives
 * one key per element.
 * <p>
 * Expressions are evaluated in a {@link SimpleEvaluationContext} that allows reading
 * properties and calling instance methods of the arguments, but not {@code T(..)},
 * constructors or bean references; argument values are data and are never parsed as
 * expressions.
 *
 * @since 0.1.0
 */
@Internal
public final class MethodKeyResolver {

	private static final SpelExpressionParser PARSER = new SpelExpressionParser();

	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d+)");

	private static final Pattern SIMPLE_VARIABLE = Pattern.compile("#([A-Za-z_$][\\w$]*)");

	private final Method method;

	private final String name;

	private final String description;

	private final String[] sources;

	private final Part[] parts;

	private final @Nullable String[] parameterNames;

	/** Whether a part is an expression to evaluate, not a plain argument reference. */
	private final boolean evaluates;

	private MethodKeyResolver(Method method, String name, String description, String[] sources, Part[] parts,
			@Nullable String[] parameterNames) {
		this.method = method;
		this.name = name;
		this.description = description;
		this.sources = sources;
		this.parts = parts;
		this.parameterNames = parameterNames;
		this.evaluates = Arrays.stream(parts).anyMatch((part) -> part.argumentIndex < 0);
	}

	/**
	 * Parse and check the key expressions of a method.
	 * @param method the method whose arguments the expressions read
	 * @param name the lock name
	 * @param expressions the key expressions
	 * @return the resolver
	 * @throws IllegalArgumentException if an expression cannot be parsed or refers to a
	 * variable that is not a parameter of the method
	 */
	public static MethodKeyResolver create(Method method, String name, String... expressions) {
		String description = method.getDeclaringClass().getSimpleName() + "." + method.getName();
		@Nullable String[] parameterNames = parameterNames(method);
		Set<String> variables = variables(parameterNames);
		List<Part> parts = new ArrayList<>(expressions.length);
		for (String source : expressions) {
			if (!StringUtils.hasText(source)) {
				throw new IllegalArgumentException("Key expression must not be blank");
			}
			parts.add(parse(source.strip(), variables, parameterNames));
		}
		return new MethodKeyResolver(method, name, description, expressions, parts.toArray(Part[]::new),
				parameterNames);
	}

	/**
	 * Return the lock name.
	 * @return the lock name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * Return the key expressions, as declared.
	 * @return the expressions, empty when one lock guards the method for all arguments
	 */
	public List<String> expressions() {
		return List.of(this.sources);
	}

	/**
	 * Build the key for one call.
	 * @param args the call's arguments
	 * @return {@code name} alone when there are no expressions, else {@code name:value}
	 * @throws InvalidLockKeyException if an expression fails, or yields {@code null} or a
	 * blank value
	 */
	public String resolve(@Nullable Object[] args) {
		if (this.parts.length == 0) {
			return this.name;
		}
		SimpleEvaluationContext context = this.evaluates ? context(args) : null;
		if (this.parts.length == 1) {
			// The common case, one value as the key: no builder when there is nothing to
			// escape
			return LockKeys.key(this.name, text(value(0, args, context), 0));
		}
		StringBuilder key = new StringBuilder(this.name.length() + 32).append(this.name);
		for (int i = 0; i < this.parts.length; i++) {
			key.append(':');
			LockKeys.appendEscaped(key, text(value(i, args, context), i));
		}
		return key.toString();
	}

	/**
	 * Build one key per expression for one call, for a lock on each of them: each is
	 * {@code name:value}, escaped as in {@link #resolve(Object[])}, so it is the key that
	 * a single expression with that value gives. An expression whose value is a
	 * {@link Collection} or an array gives one key per element. The keys are returned in
	 * the order of the expressions and elements, duplicates included.
	 * @param args the call's arguments
	 * @return the keys; {@code name} alone when there are no expressions
	 * @throws InvalidLockKeyException if an expression fails, or yields {@code null}, a
	 * blank value, an empty collection or array, or a collection or array with a
	 * {@code null} or blank element
	 * @since 0.1.0
	 */
	public List<String> resolveEach(@Nullable Object[] args) {
		if (this.parts.length == 0) {
			return List.of(this.name);
		}
		List<String> keys = new ArrayList<>(this.parts.length);
		SimpleEvaluationContext context = this.evaluates ? context(args) : null;
		for (int i = 0; i < this.parts.length; i++) {
			Object value = value(i, args, context);
			if (value instanceof Collection<?> || (value != null && value.getClass().isArray())) {
				List<?> elements = (value instanceof Collection<?> collection) ? new ArrayList<>(collection)
						: arrayElements(value);
				if (elements.isEmpty()) {
					throw new InvalidLockKeyException(this.name, "Key expression '" + this.sources[i] + "' of "
							+ this.description + " evaluated to an empty collection, which names no lock", null);
				}
				for (Object element : elements) {
					keys.add(LockKeys.key(this.name, text(element, i)));
				}
			}
			else {
				keys.add(LockKeys.key(this.name, text(value, i)));
			}
		}
		return keys;
	}

	private static List<?> arrayElements(Object array) {
		int length = Array.getLength(array);
		List<@Nullable Object> elements = new ArrayList<>(length);
		for (int i = 0; i < length; i++) {
			elements.add(Array.get(array, i));
		}
		return elements;
	}

	/**
	 * Register the reflection hints that evaluating the key expressions needs in a native
	 * image: the getters and instance methods that the expressions call on the method's
	 * arguments, as far as the declared parameter types tell (a call on a subtype or an
	 * implementation that only the argument's runtime class has is not covered). A plain
	 * parameter reference such as {@code #userName} or {@code #p0} needs none.
	 * @param hints the reflection hints to contribute to
	 */
	public void registerReflectionHints(ReflectionHints hints) {
		Assert.notNull(hints, "'hints' must not be null");
		for (Part part : this.parts) {
			if (part.argumentIndex < 0) {
				KeyExpressionHints.register(hints, ((SpelExpression) part.expression).getAST(), this::parameterType);
			}
		}
	}

	private @Nullable Class<?> parameterType(String variable) {
		Class<?>[] types = this.method.getParameterTypes();
		for (int i = 0; i < this.parameterNames.length; i++) {
			if (variable.equals(this.parameterNames[i])) {
				return types[i];
			}
		}
		Matcher positional = POSITIONAL.matcher(variable);
		int index = positional.matches() ? Integer.parseInt(positional.group(1)) : -1;
		return (index >= 0 && index < types.length) ? types[index] : null;
	}

	/**
	 * Return the value of a part: the argument it refers to, or its expression's value in
	 * the context, which is not {@code null} when a part is an expression.
	 */
	private @Nullable Object value(int index, @Nullable Object[] args, @Nullable SimpleEvaluationContext context) {
		Part part = this.parts[index];
		if (part.argumentIndex >= 0) {
			return (part.argumentIndex < args.length) ? args[part.argumentIndex] : null;
		}
		Assert.state(context != null, "An expression part is evaluated in a context");
		try {
			return part.expression.getValue(context);
		}
		catch (EvaluationException ex) {
			throw new InvalidLockKeyException(this.name, "Key expression '" + this.sources[index] + "' of "
					+ this.description + " could not be evaluated: " + ex.getMessage(), ex);
		}
	}

	private String text(@Nullable Object value, int index) {
		String text = (value != null) ? value.toString() : null;
		if (!StringUtils.hasText(text)) {
			throw new InvalidLockKeyException(this.name, "Key expression '" + this.sources[index] + "' of "
					+ this.description + " evaluated to " + ((text == null) ? "null" : "a blank value"), null);
		}
		return text;
	}

	private SimpleEvaluationContext context(@Nullable Object[] arguments) {
		SimpleEvaluationContext context = SimpleEvaluationContext.forReadOnlyDataBinding()
			.withInstanceMethods()
			.build();
		// A suspend function's continuation is not an argument the caller passed
		@Nullable Object[] args = (arguments.length > this.parameterNames.length)
				? Arrays.copyOf(arguments, this.parameterNames.length) : arguments;
		context.setVariable("args", args);
		for (int i = 0; i < args.length; i++) {
			context.setVariable("p" + i, args[i]);
			context.setVariable("a" + i, args[i]);
			String parameterName = this.parameterNames[i];
			if (parameterName != null) {
				context.setVariable(parameterName, args[i]);
			}
		}
		return context;
	}

	private static Part parse(String source, Set<String> variables, @Nullable String[] parameterNames) {
		Expression expression;
		try {
			expression = PARSER.parseExpression(source);
		}
		catch (ParseException ex) {
			throw new IllegalArgumentException("Key expression '" + source + "' cannot be parsed: " + ex.getMessage(),
					ex);
		}
		checkVariables(source, ((SpelExpression) expression).getAST(), variables);
		return new Part(expression, argumentIndex(source, parameterNames));
	}

	/**
	 * The argument index for an expression that is just {@code #name}, {@code #p0} or
	 * {@code #a0}.
	 */
	private static int argumentIndex(String source, @Nullable String[] parameterNames) {
		Matcher matcher = SIMPLE_VARIABLE.matcher(source);
		if (!matcher.matches()) {
			return -1;
		}
		String variable = matcher.group(1);
		for (int i = 0; i < parameterNames.length; i++) {
			if (variable.equals(parameterNames[i])) {
				return i;
			}
		}
		Matcher positional = POSITIONAL.matcher(variable);
		return positional.matches() ? Integer.parseInt(positional.group(1)) : -1;
	}

	private static void checkVariables(String source, SpelNode node, Set<String> variables) {
		if (node instanceof VariableReference) {
			String variable = node.toStringAST().substring(1);
			if (!variable.equals("this") && !variable.equals("root") && !variables.contains(variable)) {
				throw new IllegalArgumentException("Key expression '" + source + "' refers to '#" + variable
						+ "', which is not a parameter; available: " + variables
						+ " (parameter names need the -parameters compiler flag)");
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkVariables(source, node.getChild(i), variables);
		}
	}

	/**
	 * The names of the parameters that the expressions see: the declared ones, without
	 * the continuation that a Kotlin {@code suspend} function takes last.
	 */
	private static @Nullable String[] parameterNames(Method method) {
		int declared = declaredParameterCount(method);
		@Nullable String[] names = PARAMETER_NAMES.getParameterNames(method);
		if (names == null) {
			return new String[declared];
		}
		return (names.length > declared) ? Arrays.copyOf(names, declared) : names;
	}

	private static int declaredParameterCount(Method method) {
		int count = method.getParameterCount();
		return (count > 0 && KotlinDetector.isSuspendingFunction(method)) ? count - 1 : count;
	}

	private static Set<String> variables(@Nullable String[] parameterNames) {
		Set<String> variables = new LinkedHashSet<>();
		variables.add("args");
		for (int i = 0; i < parameterNames.length; i++) {
			variables.add("p" + i);
			variables.add("a" + i);
			if (parameterNames[i] != null) {
				variables.add(parameterNames[i]);
			}
		}
		return variables;
	}

	private record Part(Expression expression, int argumentIndex) {
	}

}
