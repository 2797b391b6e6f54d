// Before the build: the artifacts installed in the invoker's local repository are the ones a user gets. Every
// published POM must be the flattened one, complete on its own: no parent, the release's version, no property
// that the POM itself does not define. lock-parent and this module are installed too (they are this module's
// parent and itself) but are not published: they are removed, so that the build cannot lean on them.

def group = new File(localRepositoryPath, 'dev/lockstarter')
assert group.directory : "No dev.lockstarter artifact was installed in ${localRepositoryPath}"

['lock-parent', 'release-check'].each { unpublished ->
	def dir = new File(group, unpublished)
	if (dir.exists()) {
		assert dir.deleteDir() : "Could not remove ${dir}"
	}
}

def published = (group.listFiles()?.findAll { it.directory }*.name ?: []).sort()
assert published.containsAll(['lock-bom', 'lock-spring-boot-starter', 'lock-test']) :
		"Published artifacts missing from ${group}: found ${published}"

published.each { artifactId ->
	def pom = new File(group, "${artifactId}/${releaseVersion}/${artifactId}-${releaseVersion}.pom")
	assert pom.file : "No POM for dev.lockstarter:${artifactId}:${releaseVersion} in ${group}"
	def text = pom.getText('UTF-8')
	def project = new groovy.xml.XmlSlurper().parseText(text)
	assert project.parent.size() == 0 : "${pom} is not flattened: it names a parent"
	assert project.version.text() == releaseVersion : "${pom} has version '${project.version.text()}'"
	// A reader resolves the POM's own coordinates and properties, nothing else (not revision)
	def own = project.children().find { it.name() == 'properties' }?.children()*.name() ?: []
	def references = (text =~ '\\$\\{([^}]+)\\}').collect { it[1] }.unique()
	def unresolvable = references.findAll {
		!(it in ['project.groupId', 'project.artifactId', 'project.version'] || it in own)
	}
	assert unresolvable.isEmpty() : "${pom} is not flattened: it refers to the properties ${unresolvable}"
}

println "Installed for the consumer: ${published.size()} published artifacts at ${releaseVersion}, POMs flattened: ${published}"
return true
