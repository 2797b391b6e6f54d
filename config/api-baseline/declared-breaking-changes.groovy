/*
 * The API check's post-analysis step (docs/compatibility.md), run by japicmp with the
 * classes it compared (jApiClasses), before it decides whether to fail the build:
 *
 * 1. A breaking change that CHANGELOG.md declares is accepted: it stays in the report, but
 *    no longer fails the build. Declarations are the backticked names in the bullets under
 *    "### Breaking changes" in the changelog's first "## " section (the unreleased one):
 *      `dev.lockstarter.core.LockTemplate#setLossMargin`  every member of that name
 *      `dev.lockstarter.core.LockTemplate#LockTemplate`   its constructors
 *      `dev.lockstarter.core.LockTemplate`                every change of the type
 *    A nested type is written with a dot (`dev.lockstarter.core.LockHolders.LockHolder`);
 *    a parameter list after a member's name may be written and is not read. A type's changes
 *    that come from a supertype (a method removed from a superclass, an abstract method
 *    added to an interface it implements) are accepted when that supertype is declared.
 * 2. Every breaking change left is printed as the declaration that would accept it.
 *
 * What is internal (@Internal on a type, a member or a package-info) japicmp leaves out
 * itself. japicmp ignores the script's return value and reads the objects it was given, so
 * accepted changes are changed in place.
 */
import java.nio.file.Files
import java.nio.file.Path
import java.nio.file.Paths

final String HEADING = '### Breaking changes'
final Set<String> INHERITED = ['METHOD_REMOVED_IN_SUPERCLASS', 'FIELD_REMOVED_IN_SUPERCLASS',
		'METHOD_ABSTRACT_ADDED_IN_SUPERCLASS', 'METHOD_ABSTRACT_ADDED_IN_IMPLEMENTED_INTERFACE',
		'METHOD_MOVED_TO_SUPERCLASS'] as Set

Path findChangelog() {
	String root = System.getProperty('maven.multiModuleProjectDirectory')
	Path dir = (root != null) ? Paths.get(root) : Paths.get('').toAbsolutePath()
	while (dir != null) {
		Path candidate = dir.resolve('CHANGELOG.md')
		if (Files.isRegularFile(candidate) && Files.isDirectory(dir.resolve('config/api-baseline'))) {
			return candidate
		}
		dir = dir.parent
	}
	throw new IllegalStateException('CHANGELOG.md not found above ' + Paths.get('').toAbsolutePath())
}

Set<String> readDeclarations(Path changelog, String heading) {
	Set<String> declared = new LinkedHashSet<>()
	boolean inRelease = false
	boolean inBreaking = false
	for (String line : Files.readAllLines(changelog)) {
		if (line.startsWith('## ')) {
			if (inRelease) {
				break
			}
			inRelease = true
			continue
		}
		if (line.startsWith('### ')) {
			inBreaking = inRelease && line.trim().equalsIgnoreCase(heading)
			continue
		}
		if (inBreaking) {
			def matcher = line =~ /`(dev\.lockstarter\.[A-Za-z0-9_.$]+(?:#[A-Za-z0-9_$]+)?)(?:\([^`]*\))?`/
			while (matcher.find()) {
				declared.add(matcher.group(1).replace('$', '.'))
			}
		}
	}
	return declared
}

String typeName(String binaryName) {
	return binaryName.replace('$', '.')
}

String simpleName(String binaryName) {
	return binaryName.substring(binaryName.lastIndexOf('.') + 1).replaceAll(/^.*\$/, '')
}

/** The names of a class's supertypes, in the old and the new version. */
Set<String> supertypes(def jApiClass) {
	Set<String> names = new HashSet<>()
	List<Object> pending = []
	jApiClass.oldClass.ifPresent { pending.add(it) }
	jApiClass.newClass.ifPresent { pending.add(it) }
	while (!pending.isEmpty()) {
		def ctClass = pending.remove(pending.size() - 1)
		List<String> parents = []
		try {
			parents.addAll(ctClass.classFile.interfaces as List)
			String superclass = ctClass.classFile.superclass
			if (superclass != null) {
				parents.add(superclass)
			}
		}
		catch (Exception ignored) {
		}
		for (String parent : parents) {
			if (names.add(typeName(parent))) {
				def parentClass = ctClass.classPool.getOrNull(parent)
				if (parentClass != null) {
					pending.add(parentClass)
				}
			}
		}
	}
	return names
}

boolean isBreaking(def change) {
	return !change.binaryCompatible || !change.sourceCompatible
}

/** Accepts the breaking changes among these, returning the number accepted. */
int accept(List changes) {
	int accepted = 0
	for (def change : changes) {
		if (isBreaking(change)) {
			change.binaryCompatible = true
			change.sourceCompatible = true
			accepted++
		}
	}
	return accepted
}

Path changelog = findChangelog()
Set<String> declared = readDeclarations(changelog, HEADING)
Set<String> declaredTypes = declared.collect { it.contains('#') ? it.substring(0, it.indexOf('#')) : it } as Set
List<String> undeclared = []
int acceptedCount = 0

for (def jApiClass : jApiClasses) {
	String type = typeName(jApiClass.fullyQualifiedName)
	boolean wholeType = declared.contains(type)
	Closure<Boolean> memberDeclared = { String member -> wholeType || declared.contains(type + '#' + member) }
	List<String> found = []

	List classChanges = jApiClass.compatibilityChanges + jApiClass.superclass.compatibilityChanges
	jApiClass.interfaces.each { classChanges.addAll(it.compatibilityChanges) }
	if (wholeType) {
		acceptedCount += accept(classChanges)
	}
	else {
		Set<String> parents = null
		for (def change : classChanges.findAll { isBreaking(it) }) {
			if (INHERITED.contains(change.type.name())) {
				parents = parents ?: supertypes(jApiClass)
				if (parents.any { declaredTypes.contains(it) }) {
					acceptedCount += accept([change])
					continue
				}
			}
			found.add("`${type}` ${change.type.name()}")
		}
	}
	for (def method : jApiClass.methods) {
		List changes = method.compatibilityChanges + method.returnType.compatibilityChanges
		if (memberDeclared(method.name)) {
			acceptedCount += accept(changes)
		}
		else {
			changes.findAll { isBreaking(it) }.each { found.add("`${type}#${method.name}` ${it.type.name()}") }
		}
	}
	String constructorName = simpleName(jApiClass.fullyQualifiedName)
	for (def constructor : jApiClass.constructors) {
		if (memberDeclared(constructorName)) {
			acceptedCount += accept(constructor.compatibilityChanges)
		}
		else {
			constructor.compatibilityChanges.findAll { isBreaking(it) }
				.each { found.add("`${type}#${constructorName}` ${it.type.name()}") }
		}
	}
	for (def field : jApiClass.fields) {
		if (memberDeclared(field.name)) {
			acceptedCount += accept(field.compatibilityChanges)
		}
		else {
			field.compatibilityChanges.findAll { isBreaking(it) }
				.each { found.add("`${type}#${field.name}` ${it.type.name()}") }
		}
	}
	// A type gone from the API needs one declaration, the type's, which covers its members
	String removal = found.find { it ==~ /`[^`#]+` CLASS_(REMOVED|NO_LONGER_PUBLIC|LESS_ACCESSIBLE)/ }
	undeclared.addAll(removal != null ? [removal] : found)
}

if (acceptedCount > 0) {
	println "[api-check] ${acceptedCount} breaking change(s) accepted, declared in ${changelog}"
}
if (!undeclared.isEmpty()) {
	println '[api-check] Breaking changes that CHANGELOG.md does not declare:'
	undeclared.unique().each { println '[api-check]   ' + it }
	println "[api-check] If intended, name each in a bullet under \"${HEADING}\" in the first section of " +
			'CHANGELOG.md, with what users do instead (docs/compatibility.md).'
}
return jApiClasses
