"""The section "Profile of the client path": where the samples of a Java Flight Recorder recording of the lock
cycle fall, before and after the client path was trimmed (benchmarks/profile.sh and profile.py,
benchmarks/results/profile.json)."""

from . import fmt
from .fmt import number


def section(profile, w):
    """The section: the share of samples per group and the starter's own methods, or why there is none."""
    if not fmt.section(w, "Profile of the client path", profile,
                       "there is no `benchmarks/results/profile.json` (`benchmarks/profile.sh`)"):
        return
    w("`benchmarks/profile.sh` runs `LockCycleBenchmarks.EightThreads.lockTemplate` under Java Flight Recorder "
      "(Java samples every millisecond), once with the code of `%s` (*before*: the last commit before the client "
      "path was trimmed) and once with `%s` (*after*). Each sample of a thread running Java code is put in one "
      "group by its stack (`benchmarks/profile.py`): *the starter's own code* (the innermost starter frame is "
      "above any Lettuce or Netty frame, so the time is in the starter or the JDK code it calls), *the Redis "
      "client under the starter* (Lettuce or Netty on the caller's thread), and *elsewhere* (the client's I/O "
      "threads, the JMH harness). Throughputs are from the profiled runs, so below the un-profiled ones." % (
          profile["before_revision"], profile["after_revision"]))
    w("")
    profiles = {entry["label"]: entry for entry in profile["profiles"]}
    order = [label for label in ("before", "after") if label in profiles]
    w("| | %s |" % " | ".join(order))
    w("|---|%s|" % "|".join("---:" for _ in order))
    w("| cycles/s while profiled | %s |" % " | ".join(
        "%s ± %s" % (number(profiles[label]["score"]["ops_per_s"]), number(profiles[label]["score"]["error"]))
        if profiles[label].get("score") else "n/a" for label in order))
    for group in ("starter", "client under the starter", "elsewhere"):
        name = {"starter": "the starter's own code", "client under the starter": "the Redis client under the starter",
                "elsewhere": "elsewhere"}[group]
        w("| %s, share of Java samples | %s |" % (name, " | ".join(
            "%.1f%%" % (100.0 * profiles[label]["groups"].get(group, 0) / max(1, profiles[label]["samples"]))
            for label in order)))
    w("| Java samples | %s |" % " | ".join(number(profiles[label]["samples"]) for label in order))
    w("")
    for label in order:
        entry = profiles[label]
        w("The starter's own methods, %s (share of all Java samples):" % label)
        w("")
        w("| method | share |")
        w("|---|---:|")
        for method, count in entry["starter_methods"][:10]:
            w("| `%s` | %.1f%% |" % (method.replace("dev.lockstarter.", ""), 100.0 * count / max(1, entry["samples"])))
        w("")
