#!/usr/bin/env python3
"""Summarises a benchmarks/compare.sh run as a Markdown table of ratios.

    compare.py RESULTS_DIR BASE_LABEL HEAD_LABEL

RESULTS_DIR holds {base,head}-{pass}-jmh.json (JMH's JSON output) and
{base,head}-{pass}-handoff.json (HandoffLatency's output). The iterations of every pass and
fork of one side are pooled; a JMH figure is their mean with a 99.9 % confidence interval, and
"within error" means the two intervals overlap. Handoff percentiles are taken over the pooled
samples, with a bootstrap 95 % interval for the ratio of medians. The pooling and the statistics are the
report package's (report/results.py, report/stats.py), which the clock section of docs/PERFORMANCE.md shares.
"""

import statistics
import sys

from report.results import pooled_handoffs, pooled_jmh
from report.stats import change_verdict, interval, median_ratio_interval, percentile


def main():
    directory, base_label, head_label = sys.argv[1:4]
    base, head = pooled_jmh(directory, "base"), pooled_jmh(directory, "head")
    print("# Before and after\n")
    print("Base: %s. Head: %s.\n" % (base_label, head_label))
    print("| benchmark | threads | base | head | head / base | verdict |")
    print("|---|---:|---:|---:|---:|---|")
    for key in sorted(set(base) & set(head)):
        unit, base_scores = base[key]
        _, head_scores = head[key]
        base_mean, base_error = interval(base_scores)
        head_mean, head_error = interval(head_scores)
        verdict = change_verdict(base_mean, base_error, head_mean, head_error, higher_is_better="ops/" in unit)
        print("| %s | %d | %.3f ± %.3f %s | %.3f ± %.3f %s | %.3f | %s |" % (
            key[0], key[1], base_mean, base_error, unit, head_mean, head_error, unit, head_mean / base_mean,
            verdict))
    for side, label in (("base", base), ("head", head)):
        floor = [k for k in label if k[0].endswith(".rawLettuce")]
        for key in sorted(floor):
            cycle_key = (key[0].replace(".rawLettuce", ".lockTemplate"), key[1])
            if cycle_key in label:
                cycle = statistics.fmean(label[cycle_key][1])
                raw = statistics.fmean(label[key][1])
                print("\n%s, %d thread(s): LockTemplate cycle at %.2f of the raw Lettuce floor's throughput"
                      % (side, key[1], cycle / raw), end="")
    print("\n")
    for kind, title in (("handoff", "Handoff, JVMs as started"), ("warm", "Handoff between warm JVMs")):
        handoff_table(directory, kind, title)


def handoff_table(directory, kind, title):
    base_handoffs, head_handoffs = pooled_handoffs(directory, "base", kind), pooled_handoffs(directory, "head", kind)
    if not base_handoffs and not head_handoffs:
        return
    print("\n%s:\n" % title)
    print("| lock | base p50 | head p50 | base p99 | head p99 | head / base p50 (95 % interval) |")
    print("|---|---:|---:|---:|---:|---|")
    for lock in sorted(set(base_handoffs) | set(head_handoffs)):
        row = [lock]
        for percent in (50, 99):
            for samples in (base_handoffs.get(lock), head_handoffs.get(lock)):
                row.append("%.2f ms" % (percentile(sorted(samples), percent) / 1000) if samples else "n/a")
        if lock in base_handoffs and lock in head_handoffs:
            low, high = median_ratio_interval(head_handoffs[lock], base_handoffs[lock])
            ratio = statistics.median(head_handoffs[lock]) / statistics.median(base_handoffs[lock])
            row.append("%.3f (%.3f to %.3f)" % (ratio, low, high))
        else:
            row.append("n/a")
        print("| " + " | ".join(row) + " |")
    blocking, reactive = head_handoffs.get("STARTER"), head_handoffs.get("STARTER_REACTIVE")
    if blocking and reactive:
        low, high = median_ratio_interval(reactive, blocking)
        print("\nHead, reactive waiter against the blocking one: p50 %.3f (95 %% interval %.3f to %.3f), p99 %.3f"
              % (statistics.median(reactive) / statistics.median(blocking), low, high,
                 percentile(sorted(reactive), 99) / percentile(sorted(blocking), 99)))


if __name__ == "__main__":
    main()
