package dev.lockstarter.core;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a type, a member or a whole package that is public only so that the starter's own
 * modules can reach it: the engine behind the templates, the interceptors and filters,
 * the auto-configuration classes and the like. It is not part of the API that
 * applications, stores and tests write against, and it may change or go away in any
 * release, without notice in the changelog's breaking changes.
 * <p>
 * Everything public that does not carry this annotation (on itself, on its enclosing type
 * or on its package) is API, and the build compares it with the recorded baseline: a
 * binary or source incompatible change fails the build unless the changelog declares it.
 * See {@code docs/compatibility.md}.
 * <p>
 * Kept in the class files (retention {@link RetentionPolicy#CLASS}) so that the API check
 * sees it, and shown in the Javadoc.
 *
 * @since 0.1.0
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ ElementType.TYPE, ElementType.PACKAGE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD })
public @interface Internal {

}
