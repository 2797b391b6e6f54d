"""The section "Handoff to a waiter in another JVM": the time from a holder's release until a waiter blocked in
another JVM has the lock, per lock (HandoffLatency in benchmarks/results/handoff.json, and handoff-warm.json for
warm JVMs), with bootstrap intervals of the ratios to this starter's and the two charts of handoff_charts.py."""

import math
import random

from .fmt import ms, ordinal
from .handoff_charts import REFERENCE_SETUP, handoff_cdf_chart, handoff_chart, handoff_rows, reference_first
from .stats import BOOTSTRAP_RESAMPLES, bootstrap_percentiles, ratio_interval
from .svg import CHART_DIR, remove_chart, write_chart


def section(handoff, warm_handoff, charts, w):
    """The section when handoff.json exists; without it, no section and no charts."""
    if not handoff:
        remove_chart(charts, "handoff-latency.svg")
        remove_chart(charts, "handoff-cdf.svg")
        return
    w("## Handoff to a waiter in another JVM")
    w("")
    w("The time from the moment a holder starts its release until a waiter blocked on the same key, **in another "
      "JVM** (as another application instance would be), has acquired it; %d handoffs per implementation, after 50 "
      "for warm-up, on one Redis server (`HandoffLatency`). Both timestamps are `System.nanoTime()`, the "
      "system-wide monotonic clock on Linux. Before each release the holder waits 30 to 93 ms, so that the waiter "
      "is asleep in its wait: what is measured is a wake-up. *polling only* is this starter with the release "
      "notifications hidden, as when pub/sub is lost. Every waiter waits up to 10 s with a 30 s lock "
      "time-to-live." % handoff["handoffs"] + rounds_text(handoff))
    w("")
    setups = handoff["setups"]
    if REFERENCE_SETUP in setups:
        w("The *raw Lettuce reference* is not a library: it is the least a waiting lock on Redis can do, written "
          "directly on Lettuce's `RedisClient` to show what the wire allows. Its holder takes the lock with "
          "`SET key token NX PX 30000` and releases it with a compare-and-delete script that also `PUBLISH`es "
          "the key; its waiter tries `SET NX PX` once, subscribes to that channel on a Lettuce pub/sub "
          "connection, and when the message for its key arrives, the listener itself sends the `SET` again on "
          "a second connection (both connections share one I/O thread, so that send wakes no other thread). The "
          "waiter counts as acquired in the callback of the `OK` reply, on that I/O thread, so its time excludes "
          "waking an application thread, which every library's time includes. "
          "(It also repeats the `SET` every 100 ms in case a message is lost.) It has no lease renewal, no "
          "fencing token and no fairness: a floor to compare with, not a lock to use.")
        if "RAW_LETTUCE_SUBSCRIBER_ACQUIRES" in setups:
            w("")
            w("*%s* is the same client with two changes: its listener sends the `SET` on the subscribed "
              "connection itself (RESP3 lets a subscribed connection run any command), and the acquisition "
              "counts when the waiting application thread, woken by the `OK` reply, reads the clock, as for "
              "every library. The subscriber's I/O thread wakes for the message and for the reply, and the "
              "waiter once. This starter's waiter works the same way: the I/O thread of its subscription sends "
              "the waiter's acquisition script on the subscribed connection and wakes the waiter with the "
              "answer. What it does beyond the reference is the lock itself: the lease, its bookkeeping and a "
              "script that marks a lock found held again as watched." % (
                  setups["RAW_LETTUCE_SUBSCRIBER_ACQUIRES"].get("description", "RAW_LETTUCE_SUBSCRIBER_ACQUIRES")))
        w("")
    table(setups, w)
    charts_and_links(handoff, charts, w)
    if warm_handoff:
        w("### Warm JVMs")
        w("")
        w("The same measurement after %s more handoffs without the pause, so that each lock's code is compiled "
          "as in a server that has run for a while (`-Dhandoff.quickWarmUp=%d`); %d handoffs are measured. "
          "HotSpot's optimizing compiler takes a method after 5,000 calls or 15,000 calls and loop iterations "
          "(`Tier4InvocationThreshold`, `Tier4CompileThreshold`), and much of each lock's waiting code runs once "
          "per handoff, so fewer handoffs than that measure code that is still being profiled. The table above "
          "is of JVMs that have made only 50 handoffs, as after a start." % (
              "{:,}".format(warm_handoff.get("quick_warm_up", 0)), warm_handoff.get("quick_warm_up", 0),
              warm_handoff["handoffs"]) + rounds_text(warm_handoff))
        w("")
        table(warm_handoff["setups"], w, explain=False)


def rounds_text(handoff):
    """The sentence that says how the measured handoffs were interleaved, if they were."""
    rounds = handoff.get("rounds", 1)
    if rounds <= 1:
        return ""
    return (" Every implementation's holder and waiter are started and warmed up first; the measured handoffs then "
            "run in %d rounds of %d that take turns between the implementations, each round starting with the next "
            "one, so that a change in the machine's state during the run falls on all of them alike."
            % (rounds, handoff["handoffs"] // rounds))


def table(setups, w, explain=True):
    """The percentiles of each setup's handoffs, and their ratios to this starter's with bootstrap intervals."""
    w("| waiter | p50 | p90 | p99 | max | p50 ÷ this starter's (95%) | p99 ÷ this starter's (95%) |")
    w("|---|---:|---:|---:|---:|---:|---:|")
    ours = setups.get("STARTER")
    # Seeded: the same results render the same page
    rng = random.Random(0)
    ours_resampled = None
    if ours and ours.get("samples_us"):
        ours_resampled = bootstrap_percentiles(ours["samples_us"], (50, 99), rng)
    for name in reference_first(setups):
        values = setups[name]
        label = values.get("description", name)
        if name == "STARTER":
            label = "**%s**" % label
        elif name == REFERENCE_SETUP:
            label = "*%s*" % label
        ratios = []
        for percent in (50, 99):
            key = "p%d_us" % percent
            if not ours:
                ratios.append("n/a")
                continue
            text = "%.2f" % (values[key] / ours[key])
            if name != "STARTER" and ours_resampled and values.get("samples_us"):
                theirs = bootstrap_percentiles(values["samples_us"], (percent,), rng)[percent]
                text += " (%.2f to %.2f)" % ratio_interval(theirs, ours_resampled[percent])
            ratios.append(text)
        w("| %s | %s | %s | %s | %s | %s | %s |" % (
            label, ms(values["p50_us"]), ms(values["p90_us"]), ms(values["p99_us"]), ms(values["max_us"]), ratios[0],
            ratios[1]))
    w("")
    if ours_resampled and explain:
        w("In brackets, the central 95%% of that ratio over %s bootstrap resamples of both waiters' handoffs: a ratio "
          "whose range includes 1.00 does not tell the two apart. With %d handoffs, the p99 is the %s slowest, so "
          "its range is wide." % ("{:,}".format(BOOTSTRAP_RESAMPLES), len(ours["samples_us"]),
                                  ordinal(len(ours["samples_us"]) - int(math.ceil(0.99 * len(ours["samples_us"]))) + 1)))
        w("")


def charts_and_links(handoff, charts, w):
    """Draw the two charts into the charts folder and link them, or remove the ones this run cannot draw."""
    rows = handoff_rows(handoff)
    missing = [label for _, label, _, sampled in rows if not sampled]
    box = handoff_chart(handoff)
    if box:
        write_chart(charts, "handoff-latency.svg", box)
        w("![Handoff latency per lock, release to acquired, as box plots on a log time axis]"
          "(%s/handoff-latency.svg)" % CHART_DIR)
        w("")
        if missing and len(missing) == len(rows):
            w("*This run's `handoff.json` holds percentiles but no samples (it was written before `HandoffLatency` "
              "recorded them), so the chart shows the median, p90, p99 and max only, and the distribution chart is "
              "left out.*")
            w("")
        elif missing:
            w("*No samples for %s in this run's `handoff.json`: %s drawn from the percentiles only, and left out of "
              "the distribution chart.*" % (", ".join(missing), "it is" if len(missing) == 1 else "they are"))
            w("")
    else:
        remove_chart(charts, "handoff-latency.svg")
    cdf = handoff_cdf_chart(handoff)
    if cdf:
        write_chart(charts, "handoff-cdf.svg", cdf)
        w("![Share of handoffs done within a time, per lock, on a log time axis](%s/handoff-cdf.svg)" % CHART_DIR)
        w("")
    else:
        remove_chart(charts, "handoff-cdf.svg")
