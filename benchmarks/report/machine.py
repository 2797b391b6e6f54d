"""The section "Machine": the machine the run was made on (machine.json, written by `report.py machine` at the
run's start), the JDK of JMH's forks, the load average at the start, when JMH ended and at the end, the run's
duration and the libraries' versions."""

from .fmt import duration


def section(machine_info, first, loadavg_jmh, loadavg_end, elapsed, w):
    """The section; first is the run's first JMH result (or None), elapsed the run's seconds (or None)."""
    w("## Machine")
    w("")
    w("| | |")
    w("|---|---|")
    w("| processors (`nproc`) | %s |" % machine_info.get("nproc", "unknown"))
    w("| CPU (`/proc/cpuinfo`) | %s |" % machine_info.get("cpu_model", "unknown"))
    w("| memory | %s |" % machine_info.get("memory", "unknown"))
    w("| OS | %s |" % machine_info.get("os", "unknown"))
    if first:
        w("| JDK (JMH's forks) | %s %s, %s |" % (first.get("jdkVersion"), first.get("vmName"), first.get("vmVersion")))
    w("| `java -version` | %s |" % " / ".join(machine_info.get("java", [])))
    w("| Redis | %s |" % machine_info.get("redis_server", "unknown"))
    w("| load average (1, 5, 15 min) at the start | %s |" % " ".join(machine_info.get("loadavg_start", [])))
    if loadavg_jmh:
        w("| load average when JMH ended | %s |" % " ".join(loadavg_jmh))
    w("| load average at the end (after the HTTP run, which loads the machine itself) | %s |" % " ".join(loadavg_end))
    if elapsed is not None:
        w("| duration of the whole run (build to results) | %s |" % duration(elapsed))
    w("")
    w("Library versions: this starter at the working tree's `0.1.0-SNAPSHOT`; Spring Boot 4.1.1's managed Spring "
      "Framework, Spring Data Redis and Lettuce; Redisson 4.7.0; Spring Integration 7.1.0; ShedLock 7.10.1; "
      "JMH 1.37 (see [Versions](#versions)).")
    w("")
