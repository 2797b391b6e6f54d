"""The section "Uncontended acquire + release cycle on Redis": each lock's cycle as JMH measured it with 1 and 8
threads (LockCycleBenchmarks in benchmarks/results/jmh.json) beside the raw Lettuce floor, the Redis commands it
sends (commands.json), the chart of its throughput divided by the floor's, each iteration's score, and this
starter against each peer. VARIANTS and WHAT_EACH_DOES name and describe the locks for the other sections too."""

import math

from .fmt import error, format_ratio, number, per_cycle, strip_markup, threads_text, titled, trim
from .stats import ratio
from .svg import CHART_DIR, GRID, INK, MUTED, OURS_COLOR, PEER_COLOR, REFERENCE_COLOR, Svg, nice_step, \
    remove_chart, text_width, write_chart

# JMH method name -> (Variant enum name, label in the tables)
VARIANTS = [
    ("rawLettuce", "RAW_LETTUCE", "raw Lettuce floor"),
    ("lockTemplate", "LOCK_TEMPLATE", "**lock-starter `LockTemplate`**"),
    ("lockTemplateParking", "LOCK_TEMPLATE_PARKING", "lock-starter `LockTemplate`, reply spin 0 (parks at once)"),
    ("redisson", "REDISSON", "Redisson `RLock`"),
    ("springIntegration", "SPRING_INTEGRATION", "Spring Integration `RedisLockRegistry`"),
    ("shedLock", "SHEDLOCK", "ShedLock `RedisLockProvider`"),
    ("shedLockSafeUpdate", "SHEDLOCK_SAFE_UPDATE", "ShedLock `RedisLockProvider`, `safeUpdate`"),
]


WHAT_EACH_DOES = {
    "rawLettuce": "`SET key token NX PX 30000`, then `EVALSHA` of a compare-and-delete script, on a plain "
    "Lettuce `RedisCommands` (one shared connection); token: 128 bits from `ThreadLocalRandom`",
    "lockTemplate": "`try (Lease lease = locks.acquire(key, Duration.ofSeconds(30))) {}` on "
    "`new LockTemplate(new RedisLockStore(connectionFactory))`",
    "lockTemplateParking": "the same with `store.setReplySpin(Duration.ZERO)`: the caller parks at once on each "
    "answer, as the other clients do",
    "redisson": "`redisson.getLock(key)`, `tryLock(0, 30000, MILLISECONDS)`, `unlock()`; `Redisson.create(config)` "
    "with `useSingleServer()` defaults",
    "springIntegration": "`registry.obtain(key)`, `tryLock()`, `unlock()` on `new RedisLockRegistry(connectionFactory, "
    "\"bench-registry\", Duration.ofSeconds(30))` with `setCacheCapacity(8192)`",
    "shedLock": "`provider.lock(new LockConfiguration(Instant.now(), key, 30s, Duration.ZERO))`, `unlock()` on "
    "`new RedisLockProvider(connectionFactory)`",
    "shedLockSafeUpdate": "the same on `new RedisLockProvider.Builder(connectionFactory).safeUpdate(true).build()`",
}


def section(cycle, commands, charts, w):
    """The section; cycle maps (JMH method, threads) to its JMH result, commands is commands.json."""
    if not titled(w, "Uncontended acquire + release cycle on Redis", cycle, "No lock-cycle results in this run."):
        return
    thread_counts = sorted({threads for (_, threads) in cycle})
    raw = {t: cycle.get(("rawLettuce", t)) for t in thread_counts}
    ours = {t: cycle.get(("lockTemplate", t)) for t in thread_counts}
    w("Throughput of the whole cycle (acquire a free lock, release it), as JMH measured it: score and error are "
      "JMH's (the error is the half-width of the 99.9% confidence interval over the measurement iterations of every fork). "
      "*µs per cycle* is the mean time one thread spends on a cycle (threads / throughput). *vs floor* is the "
      "throughput ratio to the raw Lettuce floor with the same thread count (1.00 = as fast as the floor), its "
      "error propagated from both scores. *Requests* and *commands* per cycle are counted separately, on one "
      "thread (see [Commands per cycle](#commands-per-cycle)). *Rejected* counts acquisitions that failed although "
      "the key was free (it should be 0). *JVM CPU µs per cycle* is the benchmark JVM's CPU time (every thread of the "
      "process, Redis's not included) divided by its cycles.")
    w("")
    w("| variant | threads | cycles/s | error | µs per cycle | vs floor | JVM CPU µs per cycle | "
      "requests per cycle | commands executed per cycle | rejected/s |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in thread_counts:
        for method, variant, label in VARIANTS:
            entry = cycle.get((method, t))
            if not entry:
                continue
            metric = entry["primaryMetric"]
            rejected = entry.get("secondaryMetrics", {}).get("rejected", {}).get("score")
            cpu = entry.get("secondaryMetrics", {}).get("cpuMicros", {}).get("score")
            vs = format_ratio(ratio(metric, raw[t]["primaryMetric"])) if raw.get(t) else "n/a"
            requests = executed = "n/a"
            if commands and variant in commands["variants"]:
                counted = commands["variants"][variant]
                requests = trim(per_cycle(counted["requests"], commands["cycles"]))
                executed = trim(per_cycle(counted["commandStats"], commands["cycles"]))
            w("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                label, t, number(metric["score"]), error(metric), number(t * 1e6 / metric["score"], 1), vs,
                number(cpu / metric["score"], 1) if cpu is not None else "n/a",
                requests, executed, number(rejected, 0) if rejected is not None else "n/a"))
    w("")
    chart = cycle_ratio_chart(cycle, thread_counts)
    if chart:
        write_chart(charts, "cycle-throughput.svg", chart)
        w("![Throughput of each lock's uncontended cycle divided by the raw Lettuce floor's, with 1 and 8 threads]"
          "(%s/cycle-throughput.svg)" % CHART_DIR)
    else:
        remove_chart(charts, "cycle-throughput.svg")
        w("*(No chart: the raw Lettuce floor is missing from this run, so there is no ratio to draw.)*")
    w("")
    iterations_table(cycle, thread_counts, VARIANTS, w)

    w("### This starter against each peer")
    w("")
    w("Throughput of `LockTemplate` divided by the peer's, same thread count: above 1.00 ours completes more "
      "cycles per second.")
    w("")
    w("| ours ÷ | " + " | ".join(threads_text(t) for t in thread_counts) + " |")
    w("|---|" + "---:|" * len(thread_counts))
    for method, _, label in VARIANTS:
        if method == "lockTemplate":
            continue
        cells = []
        for t in thread_counts:
            peer = cycle.get((method, t))
            cells.append(format_ratio(ratio(ours[t]["primaryMetric"], peer["primaryMetric"]))
                         if peer and ours.get(t) else "n/a")
        w("| %s | %s |" % (label, " | ".join(cells)))
    w("")


def one_cycle_table(variants, descriptions, w):
    """What one cycle of each variant does: descriptions maps a variant's JMH method to it."""
    w("| variant | one cycle |")
    w("|---|---|")
    for method, _, label in variants:
        w("| %s | %s |" % (label, descriptions[method]))
    w("")


def iterations_table(rows, thread_counts, variants, w):
    """Each iteration's score of every (method, threads) in rows, in the order of variants and thread counts."""
    w("Each iteration's score, to show the spread (cycles/s):")
    w("")
    w("| variant | threads | iterations |")
    w("|---|---:|---|")
    for t in thread_counts:
        for method, _, label in variants:
            entry = rows.get((method, t))
            if entry:
                iterations = [value for fork in entry["primaryMetric"]["rawData"] for value in fork]
                w("| %s | %d | %s |" % (label, t, ", ".join(number(v) for v in iterations)))
    w("")


def cycle_ratio_chart(cycle, thread_counts):
    """Horizontal bars: each variant's throughput ÷ the floor's, one group per thread count."""
    groups = []
    for t in thread_counts:
        floor = cycle.get(("rawLettuce", t))
        if not floor:
            continue
        bars = []
        for method, _, label in VARIANTS:
            entry = cycle.get((method, t))
            if entry:
                value, err = ratio(entry["primaryMetric"], floor["primaryMetric"])
                bars.append((method, strip_markup(label), value, err))
        if bars:
            groups.append((t, bars))
    if not groups:
        return None
    size = 12
    label_width = max(text_width(label, size) for _, bars in groups for _, label, _, _ in bars)
    left = 24 + max(label_width, 90)
    value_column = 96
    width = 860
    plot_right = width - 24 - value_column
    top = 78
    row = 24
    bar = 15
    group_gap = 30
    rows_height = sum(group_gap + row * len(bars) for _, bars in groups)
    axis_y = top + rows_height + 6
    legend_y = axis_y + 52
    height = legend_y + 30
    highest = max(value + (err or 0) for _, bars in groups for _, _, value, err in bars)
    step = 0.25 if highest <= 2.5 else nice_step(highest)
    x_max = max(1.25, math.ceil(highest * 1.04 / step) * step)

    def x(value):
        return left + (plot_right - left) * max(0.0, min(value, x_max)) / x_max

    title = "Uncontended acquire + release: throughput ÷ raw Lettuce floor"
    description = ("Horizontal bar chart. For %s, the JMH throughput of each Redis lock's acquire + release cycle "
                   "divided by the raw Lettuce floor's with the same thread count, with error bars. %s" % (
                       " and ".join(threads_text(t) for t, _ in groups),
                       "; ".join("%s: %s" % (threads_text(t), ", ".join(
                           "%s %s" % (label, format_ratio((value, err))) for _, label, value, err in bars))
                                 for t, bars in groups)))
    svg = Svg(width, height, title, description)
    svg.text(24, 28, title, size=16, weight="bold")
    svg.text(24, 48, "Cycles/s ÷ the floor's cycles/s with the same thread count; 1.0 = as fast as two hand-written "
             "round trips, higher is faster.", size=12, fill=MUTED)
    svg.text(24, 64, "Error bars: JMH's 99.9% confidence half-widths of both scores, propagated to the ratio.",
             size=12, fill=MUTED)
    # Grid and axis
    tick = 0.0
    while tick <= x_max + 1e-9:
        svg.line(x(tick), top, x(tick), axis_y, stroke=GRID)
        svg.text(x(tick), axis_y + 16, ("%.2f" % tick).rstrip("0").rstrip(".") if tick else "0", size=11,
                 anchor="middle", fill=MUTED)
        tick += step
    svg.line(left, axis_y, plot_right, axis_y, stroke=MUTED)
    svg.text((left + plot_right) / 2, axis_y + 36, "throughput ÷ raw Lettuce floor (ratio, same thread count)",
             size=12, anchor="middle")
    svg.text(plot_right + value_column, top - 4, "ratio ± error", size=11, anchor="end", fill=MUTED)
    y = top
    for t, bars in groups:
        y += group_gap
        svg.text(24, y - 9, threads_text(t), size=13, weight="bold")
        svg.line(24, y - 4, plot_right + value_column, y - 4, stroke=GRID)
        for method, label, value, err in bars:
            ours = method == "lockTemplate"
            color = OURS_COLOR if ours else REFERENCE_COLOR if method == "rawLettuce" else PEER_COLOR
            middle = y + row / 2
            svg.text(left - 8, middle + 4, label, size=size, anchor="end", weight="bold" if ours else None)
            svg.rect(left, middle - bar / 2, x(value) - left, bar, color)
            if err is not None:
                low, high = x(value - err), x(value + err)
                svg.line(low, middle, high, middle, stroke=INK, width=1.5)
                svg.line(low, middle - 5, low, middle + 5, stroke=INK, width=1.5)
                svg.line(high, middle - 5, high, middle + 5, stroke=INK, width=1.5)
            svg.text(plot_right + value_column, middle + 4, format_ratio((value, err)), size=size, anchor="end",
                     weight="bold" if ours else None)
            y += row
    # The floor
    svg.line(x(1.0), top + 8, x(1.0), axis_y, stroke=INK, width=1.5, dash="5,4")
    svg.text(x(1.0), top + 2, "floor = 1.0", size=11, anchor="middle")
    # Legend
    lx = 24
    for color, label in ((OURS_COLOR, "this starter (LockTemplate)"), (REFERENCE_COLOR, "raw Lettuce floor"),
                         (PEER_COLOR, "other libraries")):
        svg.rect(lx, legend_y - 10, 14, 12, color)
        svg.text(lx + 20, legend_y, label, size=12)
        lx += 20 + text_width(label, 12) + 28
    svg.line(lx, legend_y - 4, lx + 24, legend_y - 4, stroke=INK, width=1.5)
    svg.line(lx, legend_y - 9, lx, legend_y + 1, stroke=INK, width=1.5)
    svg.line(lx + 24, legend_y - 9, lx + 24, legend_y + 1, stroke=INK, width=1.5)
    svg.text(lx + 30, legend_y, "error bar (±)", size=12)
    return svg
