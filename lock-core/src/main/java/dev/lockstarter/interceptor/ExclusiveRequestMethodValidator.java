package dev.lockstarter.interceptor;

import java.util.List;

import dev.lockstarter.core.Internal;

/**
 * The {@link LockMethodValidator} of {@link dev.lockstarter.annotation.ExclusiveRequest}
 * declarations, which also lists the methods that share their result.
 *
 * @since 0.1.0
 */
@Internal
public class ExclusiveRequestMethodValidator extends LockMethodValidator<ExclusiveRequestAttribute> {

	/**
	 * Create a new validator.
	 * @param attributeSource the source that parses and caches declarations
	 */
	public ExclusiveRequestMethodValidator(ExclusiveRequestAttributeSource attributeSource) {
		super(attributeSource);
	}

	/**
	 * Return the methods found so far whose declaration shares results
	 * ({@link dev.lockstarter.annotation.OnConflict#SHARE_RESULT}), so that the
	 * application can check at startup that its lock store keeps results.
	 * @return the methods, as {@code ClassName.method(ParamType, ...)}, sorted
	 */
	public List<String> getResultSharingMethods() {
		return getDeclarations().stream()
			.map((declaration) -> declaration.attribute().resultSharing())
			.filter((sharing) -> sharing != null)
			.map(ResultSharing::describeMethod)
			.distinct()
			.sorted()
			.toList();
	}

}
