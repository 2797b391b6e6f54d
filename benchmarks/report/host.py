"""Facts about this machine, for the scripts that run the benchmarks: `machine` describes it as JSON (kept as
machine.json beside a run's results, and shown in the page's Machine table), and `wait-idle` waits until its
CPUs are mostly idle before a run starts."""

import datetime
import platform
import subprocess
import time


def command_output(*command):
    """What the command printed (its standard output, else its standard error), or why it could not run."""
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as ex:
        return "unknown (%s)" % ex
    return result.stdout.strip() or result.stderr.strip()


def machine():
    """This machine: date, processors, CPU model, memory, OS, Java, Redis and the load average now."""
    cpu_model = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    memory = "unknown"
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal"):
                memory = "%.1f GiB" % (int(line.split()[1]) / 1024 / 1024)
                break
    java = command_output("java", "-version")
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": command_output("nproc"),
        "cpu_model": cpu_model,
        "memory": memory,
        "os": "%s %s" % (platform.system(), platform.release()),
        "java": java.splitlines()[0:3],
        "redis_server": command_output("redis-server", "--version"),
        "loadavg_start": open("/proc/loadavg").read().split()[0:3],
    }


def cpu_times():
    """The CPUs' idle time (idle + iowait) and total time since boot, in ticks (/proc/stat)."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    return fields[3] + fields[4], sum(fields)  # idle + iowait, total


def wait_idle(seconds, threshold=0.8, interval=2.0):
    """Wait until the CPUs were at least 80% idle over an interval, for at most the given time.

    Other processes on a shared machine (builds, tests) disturb a benchmark; starting while they run
    makes it worse. This only avoids starting in the middle of such a burst."""
    deadline = time.monotonic() + seconds
    while True:
        idle_before, total_before = cpu_times()
        time.sleep(interval)
        idle_after, total_after = cpu_times()
        idle = (idle_after - idle_before) / max(1, total_after - total_before)
        if idle >= threshold:
            print("CPUs %.0f%% idle: starting" % (100 * idle))
            return
        if time.monotonic() >= deadline:
            print("CPUs only %.0f%% idle after waiting %d s: starting anyway" % (100 * idle, seconds))
            return
        print("CPUs %.0f%% idle (other processes are busy): waiting ..." % (100 * idle))
