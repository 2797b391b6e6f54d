// After the build: its tests ran (a build that skipped them would pass too). Counts them from the build log,
// where Surefire's summary ends the test phase.

def log = new File(basedir, 'build.log').getText('UTF-8')
if (!log.contains('BUILD SUCCESS')) {
	// Not run, or failed: the invoker reports that itself, with this log
	return true
}
assert !log.contains('Tests are skipped.') : 'The consumer build skipped its tests'
def summaries = (log =~ /(?m)^\[INFO\] Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)\s*$/).collect { it }
assert !summaries.isEmpty() : 'No Surefire summary in the consumer build log'
def summary = summaries.last()
int run = summary[1] as int
int skipped = summary[4] as int
assert run > 0 : 'The consumer build ran no test'
assert skipped == 0 : "The consumer build skipped ${skipped} of its ${run} tests"

def report = new File(basedir, 'target/surefire-reports/TEST-com.example.greetings.GreetingControllerTests.xml')
assert report.file : "No test report ${report}"

println "Consumer tests run: ${run}, skipped: ${skipped}"
return true
