"""The section "Single-flight under a crowd": crowds of simultaneous callers of one single-flight method on two
instances of the sample app, how often the computation ran and when the last caller had the shared result
(benchmarks/http/crowd.py, benchmarks/results/crowd.json), and its line of the page's summary."""

import statistics

from . import fmt
from .fmt import number


def summary(crowd):
    """The line of the page's summary on the largest crowd, none when it was not measured."""
    if not crowd or "skipped" in crowd:
        return []
    largest = max(crowd["crowds"], key=lambda entry: entry["size"])
    worst = max(r["last_after_first_ms"] for r in largest["rounds"])
    return ["- **Single-flight under a crowd**: with %d simultaneous callers on two instances, the computation ran "
            "%s time(s) per round and the last caller had the result at most %s ms after the holder's answer "
            "(%d rounds)." % (largest["size"], "/".join(str(r["computations"]) for r in largest["rounds"]),
                               number(worst, 1), len(largest["rounds"]))]


def client_alone(crowd):
    """The sentence on how far the client alone spreads the answers, when the run measured it."""
    alone = crowd.get("client_alone")
    if not alone:
        return ""
    spreads = alone["last_after_first_ms"]
    return ("The client itself spreads the answers: against a stand-in server that answers all %d callers at "
            "the same instant (`crowd.py --serve`), its last answer came %s ms after its first (median of %d "
            "rounds, worst %s ms), part of every figure below." % (
                alone["size"], number(statistics.median(spreads), 1), len(spreads), number(max(spreads), 1)))


def section(crowd, w):
    """The section: a row per crowd size, or why there is none."""
    if not fmt.section(w, "Single-flight under a crowd", crowd, "there is no `benchmarks/results/crowd.json`"):
        return
    w("Two instances of the sample app share one Redis (`redis` profile); `GET /api/sum` is a single-flight "
      "method (`onConflict = SHARE_RESULT`) whose computation takes `sample.sum.latency` (1 s). Each round "
      "sends one crowd of simultaneous requests for the same new sum, spread evenly over both instances, from "
      "one thread and connection per caller (`benchmarks/http/crowd.py`). The first answer is the holder's; "
      "*after the holder* is how much later the last follower got the shared result. Times are from the "
      "moment the crowd was released; each row is the median of %d rounds (worst round in brackets), measured "
      "after %s unreported warm-up rounds of the largest crowd (freshly started, the instances interpret the "
      "request path, and the last follower comes about twice as late). %s" % (
          max(len(c["rounds"]) for c in crowd["crowds"]), crowd.get("warmup_rounds", 3), client_alone(crowd)))
    w("")
    w("| callers | computations | first answer | median answer | last answer | last after the holder | answers |")
    w("|---:|---:|---:|---:|---:|---:|---|")
    for entry in crowd["crowds"]:
        rounds = entry["rounds"]

        def median_of(field):
            return statistics.median(r[field] for r in rounds)

        statuses = {}
        for r in rounds:
            for status, count in r["statuses"].items():
                statuses[status] = statuses.get(status, 0) + count
        w("| %d | %s | %s s | %s s | %s s (%s) | %s ms (%s) | %s |" % (
            entry["size"], " + ".join(str(r["computations"]) for r in rounds), number(median_of("first_s"), 3),
            number(median_of("median_s"), 3), number(median_of("last_s"), 3),
            number(max(r["last_s"] for r in rounds), 3), number(median_of("last_after_first_ms"), 1),
            number(max(r["last_after_first_ms"] for r in rounds), 1),
            ", ".join("%s× %s" % (count, status) for status, count in sorted(statuses.items()))))
    w("")
