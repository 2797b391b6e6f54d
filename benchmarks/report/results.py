"""Reading the results directory (benchmarks/results/ and its subdirectories): JSON files, text files and lists of
commands that may be missing, JMH benchmark names, the passes of a before-and-after run pooled per side, and
whether a run's machine was busy."""

import glob
import json
import os

PACKAGE = "dev.lockstarter.benchmarks."


def load(directory, name):
    """The JSON file's content, or None when it does not exist."""
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return None
    with open(path) as file:
        return json.load(file)


def text(directory, name):
    """The text file's content without surrounding white space, or None when it does not exist."""
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return None
    with open(path) as file:
        return file.read().strip()


def lines(directory, name):
    """The text file's lines that are not blank, or none when it does not exist."""
    return [line for line in (text(directory, name) or "").splitlines() if line.strip()]


def commands_run(directory):
    """The commands a script ran, one a line, as it listed them in commands-run.txt."""
    return [line.strip() for line in lines(directory, "commands-run.txt")]


def benchmark_name(entry):
    """A JMH result's benchmark without the package: "LockCycleBenchmarks.OneThread.lockTemplate"."""
    name = entry["benchmark"]
    return name[len(PACKAGE):] if name.startswith(PACKAGE) else name


def jmh_passes(directory):
    """{JMH method: [its result in each pass]} from a directory's jmh-*.json files (one per benchmark and pass)."""
    runs = {}
    for name in sorted(os.listdir(directory)):
        if name.startswith("jmh-") and name.endswith(".json"):
            for entry in load(directory, name) or []:
                runs.setdefault(entry["benchmark"].split(".")[-1], []).append(entry)
    return runs


def pooled_jmh(directory, side):
    """{(benchmark, threads): (unit, [iteration scores])} over every pass of a side."""
    pooled = {}
    for path in sorted(glob.glob(os.path.join(directory, side + "-*-jmh.json"))):
        with open(path) as file:
            for entry in json.load(file):
                name = entry["benchmark"].replace(PACKAGE, "")
                metric = entry["primaryMetric"]
                key = (name, entry["threads"])
                unit, scores = pooled.setdefault(key, (metric["scoreUnit"], []))
                for fork in metric["rawData"]:
                    scores.extend(fork)
    return pooled


def pooled_handoffs(directory, side, kind):
    """{lock: [samples in microseconds]} over every pass of a side; kind is "handoff" or "warm"."""
    pooled = {}
    for path in sorted(glob.glob(os.path.join(directory, "%s-*-%s.json" % (side, kind)))):
        with open(path) as file:
            for lock, values in json.load(file)["setups"].items():
                pooled.setdefault(lock, []).extend(values["samples_us"])
    return pooled


def busy(machine_info, loadavg_end):
    """Whether the load average at a run's start or end (machine.json, loadavg-end.txt) exceeded its processors."""
    try:
        processors = int(machine_info.get("nproc"))
        loads = [float(machine_info["loadavg_start"][0]), float(loadavg_end[0])]
    except (TypeError, ValueError, KeyError, IndexError):
        return False
    return max(loads) > processors
