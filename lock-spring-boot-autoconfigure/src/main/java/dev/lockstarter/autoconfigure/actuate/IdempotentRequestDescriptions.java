package dev.lockstarter.autoconfigure.actuate;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.lockstarter.autoconfigure.actuate.LocksEndpoint.IdempotentRequestDescriptor;
import dev.lockstarter.core.LockOptions;
import dev.lockstarter.core.LockTemplate;
import dev.lockstarter.idempotency.IdempotentRequestAttribute;
import dev.lockstarter.idempotency.IdempotentRequestInterceptor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.util.ClassUtils;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

/**
 * Describes the {@code @IdempotentRequest} handler methods of the Spring MVC handler
 * mappings, as the {@link IdempotentRequestInterceptor} sees them. Only loaded when
 * lock-web and Spring MVC are on the classpath.
 */
final class IdempotentRequestDescriptions implements Supplier<List<IdempotentRequestDescriptor>> {

	private static final String[] REQUIRED_CLASSES = { "dev.lockstarter.idempotency.IdempotentRequestInterceptor",
			"org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping" };

	private final ObjectProvider<IdempotentRequestInterceptor> interceptor;

	private final ObjectProvider<RequestMappingHandlerMapping> handlerMappings;

	private IdempotentRequestDescriptions(ListableBeanFactory beanFactory) {
		this.interceptor = beanFactory.getBeanProvider(IdempotentRequestInterceptor.class);
		this.handlerMappings = beanFactory.getBeanProvider(RequestMappingHandlerMapping.class);
	}

	/**
	 * Return the descriptions of the idempotent handlers, or none when lock-web or Spring
	 * MVC is missing.
	 * @param beanFactory the bean factory with the handler mappings and the interceptor
	 * @return the supplier of descriptions
	 */
	static Supplier<List<IdempotentRequestDescriptor>> of(ListableBeanFactory beanFactory) {
		ClassLoader classLoader = IdempotentRequestDescriptions.class.getClassLoader();
		for (String required : REQUIRED_CLASSES) {
			if (!ClassUtils.isPresent(required, classLoader)) {
				return List::of;
			}
		}
		return new IdempotentRequestDescriptions(beanFactory);
	}

	@Override
	public List<IdempotentRequestDescriptor> get() {
		IdempotentRequestInterceptor interceptor = this.interceptor.getIfUnique();
		if (interceptor == null) {
			return List.of();
		}
		Map<Method, List<RequestMappingInfo>> mappings = new LinkedHashMap<>();
		Map<Method, HandlerMethod> handlers = new LinkedHashMap<>();
		this.handlerMappings.orderedStream()
			.flatMap((handlerMapping) -> handlerMapping.getHandlerMethods().entrySet().stream())
			.forEach((entry) -> {
				Method method = entry.getValue().getMethod();
				handlers.putIfAbsent(method, entry.getValue());
				mappings.computeIfAbsent(method, (key) -> new ArrayList<>()).add(entry.getKey());
			});
		LockOptions options = interceptor.getLockOptions();
		String name = Objects.requireNonNullElse(options.getName(), LockTemplate.UNNAMED);
		List<IdempotentRequestDescriptor> descriptors = new ArrayList<>();
		handlers.forEach((method, handler) -> {
			IdempotentRequestAttribute attribute = interceptor.getAttribute(handler);
			if (attribute != null) {
				descriptors.add(new IdempotentRequestDescriptor(name, describe(method),
						describe(Objects.requireNonNull(mappings.get(method))),
						IdempotentRequestInterceptor.IDEMPOTENCY_KEY, attribute.required(),
						LocksEndpoint.format(attribute.retention()), LocksEndpoint.format(options.getTtl()),
						options.isRenew(), LocksEndpoint.formatOrNull(options.getMaxHold()),
						HttpStatus.CONFLICT.value()));
			}
		});
		descriptors.sort(Comparator.comparing(IdempotentRequestDescriptor::handler));
		return descriptors;
	}

	private static String describe(Method method) {
		return ClassUtils.getQualifiedName(method.getDeclaringClass()) + "." + method.getName() + "("
				+ Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "))
				+ ")";
	}

	/**
	 * Return each mapping as its methods and a path pattern, such as
	 * {@code "POST /api/payments"} or {@code "POST,PUT /api/payments"}; a pattern alone
	 * when the mapping takes every method.
	 */
	private static List<String> describe(List<RequestMappingInfo> mappings) {
		TreeSet<String> described = new TreeSet<>();
		for (RequestMappingInfo mapping : mappings) {
			String methods = mapping.getMethodsCondition()
				.getMethods()
				.stream()
				.map(RequestMethod::name)
				.sorted()
				.collect(Collectors.joining(","));
			for (String pattern : mapping.getPatternValues()) {
				described.add(methods.isEmpty() ? pattern : methods + " " + pattern);
			}
		}
		return List.copyOf(described);
	}

}
