"""Summarizes a Java Flight Recorder recording of a JMH run of this starter's lock cycle.

Usage: profile.py LABEL SCORE_JSON RECORDING.jfr  (prints one JSON object)

Each execution sample of a thread running Java code is put in one of three groups, by its stack:
- "starter": the innermost frame of the starter (dev.lockstarter, the benchmark's own classes excepted) is
  above any frame of the Redis client (io.lettuce, io.netty, reactor): time in the starter's own code and the
  JDK code it calls (collections, locks, random numbers, strings);
- "client under the starter": a Lettuce or Netty frame is above the starter's innermost frame: the Redis
  client's work on the caller's thread;
- "elsewhere": no frame of the starter: the client's I/O threads, the JMH harness, the JVM.
and the starter's own samples are counted by the starter method they are in.
"""
import collections
import json
import subprocess
import sys

LIBRARY = ("io/lettuce", "io/netty", "reactor/")


def frame_name(frame):
    return frame["method"]["type"]["name"].replace("/", ".") + "." + frame["method"]["name"]


def is_starter(name):
    return name.startswith("dev.lockstarter") and ".benchmarks." not in name


def summarize(label, score_path, recording):
    printed = subprocess.run(["jfr", "print", "--json", "--stack-depth", "64", "--events", "jdk.ExecutionSample",
                              recording], capture_output=True, text=True, check=True).stdout
    events = json.loads(printed)["recording"]["events"]
    groups = collections.Counter()
    methods = collections.Counter()
    samples = 0
    for event in events:
        trace = event["values"]["stackTrace"]
        frames = trace["frames"] if trace else []
        if not frames:
            continue
        samples += 1
        names = [frame_name(frame) for frame in frames]
        starter = next((i for i, name in enumerate(names) if is_starter(name)), None)
        library = next((i for i, name in enumerate(names) if name.replace(".", "/").startswith(LIBRARY)), None)
        if starter is None:
            groups["elsewhere"] += 1
        elif library is not None and library < starter:
            groups["client under the starter"] += 1
        else:
            groups["starter"] += 1
            methods[names[starter]] += 1
    score = None
    with open(score_path) as file:
        for result in json.load(file):
            score = {"ops_per_s": result["primaryMetric"]["score"], "error": result["primaryMetric"]["scoreError"]}
    return {"label": label, "samples": samples, "groups": dict(groups),
            "starter_methods": methods.most_common(15), "score": score}


if __name__ == "__main__":
    json.dump(summarize(sys.argv[1], sys.argv[2], sys.argv[3]), sys.stdout, indent=1)
    print()
