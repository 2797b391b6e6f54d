"""The two charts of the handoff section, as SVG: a box plot per lock on a log time axis (min to max, 25th to 75th
percentile, median, p90 and p99) and the share of handoffs done within a time (the empirical distribution), per
lock, from HandoffLatency's samples (or its percentiles alone, for a file written before it kept samples)."""

import math

from .stats import percentile
from .svg import GRID, INK, MUTED, OURS_COLOR, PEER_COLOR, REFERENCE_COLOR, Svg, log_ticks, px, text_width, wrap

REFERENCE_SETUP = "RAW_LETTUCE_PUB_SUB"


def reference_first(setups):
    """The setups' names, the raw Lettuce reference first, then in the file's order."""
    return [name for name in setups if name == REFERENCE_SETUP] + [name for name in setups if name != REFERENCE_SETUP]


def log_time_axis(svg, low, high, left, right, top, bottom):
    """Draw the grid lines and the labels (in ms) of a log time axis from left to right, its ticks the 1-2-5 steps
    around low and high (in µs); return the function that places a time in µs on it."""
    ticks = log_ticks(low, high)
    log_low, log_high = math.log10(ticks[0]), math.log10(ticks[-1])

    def x(micros):
        position = (math.log10(max(1, micros)) - log_low) / (log_high - log_low)
        return left + (right - left) * min(1.0, max(0.0, position))

    for micros in ticks:
        major = str(micros).startswith("1")
        svg.line(x(micros), top, x(micros), bottom, stroke=GRID, width=1 if major else 0.6,
                 dash=None if major else "2,3")
        svg.text(x(micros), bottom + 16, "%g" % (micros / 1000.0), size=11 if major else 10, anchor="middle",
                 fill=INK if major else MUTED)
    return x


def handoff_rows(handoff):
    """(name, label, statistics, from samples?) per setup, the reference first, then the file's order."""
    setups = handoff.get("setups", {})
    rows = []
    for name in reference_first(setups):
        values = setups[name]
        samples = sorted(values.get("samples_us") or [])
        if samples:
            stats = {"min": samples[0], "p25": percentile(samples, 25), "p50": percentile(samples, 50),
                     "p75": percentile(samples, 75), "p90": percentile(samples, 90), "p99": percentile(samples, 99),
                     "max": samples[-1]}
        elif all(("%s_us" % key) in values for key in ("p50", "p90", "p99", "max")):
            stats = {key: values["%s_us" % key] for key in ("p50", "p90", "p99", "max")}
        else:
            continue
        rows.append((name, values.get("description", name), stats, bool(samples)))
    return rows


def ms_label(micros):
    """Microseconds as milliseconds for a chart's label, with fewer decimals the longer the time."""
    ms = micros / 1000.0
    if ms >= 10:
        return "%.0f" % ms
    if ms >= 1:
        return "%.1f" % ms
    return "%.2f" % ms


def handoff_chart(handoff):
    """One row per lock on a log time axis: min-max whisker, p25-p75 box, median, p90 and p99 marks."""
    rows = handoff_rows(handoff)
    if not rows:
        return None
    size = 12
    labels = [label + ("" if sampled else " *") for _, label, _, sampled in rows]
    left = 24 + max(text_width(label, size) for label in labels)
    value_column = 130
    width = max(900, int(left + 400 + value_column + 24))
    plot_right = width - 24 - value_column
    top = 84
    row = 30
    axis_y = top + row * len(rows) + 8
    legend_y = axis_y + 54
    height = legend_y + (40 if not all(sampled for _, _, _, sampled in rows) else 22)
    low = min(min(stats.values()) for _, _, stats, _ in rows)
    high = max(max(stats.values()) for _, _, stats, _ in rows)
    title = "Handoff to a waiter in another JVM: release → acquired"
    description = ("Box plot per lock on a logarithmic time axis, in milliseconds: %s." % "; ".join(
        "%s: median %s ms, p90 %s ms, p99 %s ms, max %s ms" % (
            label, ms_label(stats["p50"]), ms_label(stats["p90"]), ms_label(stats["p99"]), ms_label(stats["max"]))
        for _, label, stats, _ in rows))
    svg = Svg(width, height, title, description)
    svg.text(24, 28, title, size=16, weight="bold")
    svg.text(24, 48, "Time from the holder's release until the waiter, blocked in another JVM, has the lock; "
             "%s handoffs per lock. Log scale: lower is faster." % handoff.get("handoffs", "all"), size=12, fill=MUTED)
    svg.text(24, 64, "Whisker: fastest to slowest; box: 25th to 75th percentile; bar: median; ▲ p90; ◆ p99.",
             size=12, fill=MUTED)
    x = log_time_axis(svg, low, high, left, plot_right, top, axis_y)
    svg.line(left, axis_y, plot_right, axis_y, stroke=MUTED)
    svg.text((left + plot_right) / 2, axis_y + 36, "release → acquired (ms, log scale)", size=12, anchor="middle")
    svg.text(plot_right + value_column, top - 6, "median / p99 (ms)", size=11, anchor="end", fill=MUTED)
    y = top
    for (name, _, stats, sampled), label in zip(rows, labels):
        ours = name == "STARTER"
        color = OURS_COLOR if ours else REFERENCE_COLOR if name == REFERENCE_SETUP else PEER_COLOR
        middle = y + row / 2
        if (len(rows) > 1) and y > top:
            svg.line(24, y, plot_right + value_column, y, stroke="#eaeef2")
        svg.text(left - 8, middle + 4, label, size=size, anchor="end", weight="bold" if ours else None)
        start = stats.get("min", stats["p50"])
        svg.line(x(start), middle, x(stats["max"]), middle, stroke=color, width=1.5,
                 dash=None if sampled else "3,3")
        svg.line(x(stats["max"]), middle - 5, x(stats["max"]), middle + 5, stroke=color, width=1.5)
        if "min" in stats:
            svg.line(x(stats["min"]), middle - 5, x(stats["min"]), middle + 5, stroke=color, width=1.5)
        if "p25" in stats:
            svg.rect(x(stats["p25"]), middle - 8, x(stats["p75"]) - x(stats["p25"]), 16, color, stroke=color,
                     opacity="0.35")
        svg.line(x(stats["p50"]), middle - 9, x(stats["p50"]), middle + 9, stroke=INK, width=3)
        p90 = x(stats["p90"])
        svg.polygon([(p90 - 5, middle + 5), (p90 + 5, middle + 5), (p90, middle - 5)], "#ffffff", stroke=INK)
        p99 = x(stats["p99"])
        svg.polygon([(p99, middle - 6), (p99 + 6, middle), (p99, middle + 6), (p99 - 6, middle)], INK)
        svg.text(plot_right + value_column, middle + 4, "%s / %s" % (ms_label(stats["p50"]), ms_label(stats["p99"])),
                 size=size, anchor="end", weight="bold" if ours else None)
        y += row
    lx = 24
    names = [name for name, _, _, _ in rows]
    kinds = [(OURS_COLOR, "this starter", "STARTER" in names),
             (REFERENCE_COLOR, "raw Lettuce reference", REFERENCE_SETUP in names),
             (PEER_COLOR, "other setups", any(name not in ("STARTER", REFERENCE_SETUP) for name in names))]
    for color, label in [(color, label) for color, label, present in kinds if present]:
        svg.rect(lx, legend_y - 10, 14, 12, color, opacity="0.35")
        svg.line(lx + 7, legend_y - 11, lx + 7, legend_y + 3, stroke=color, width=3)
        svg.text(lx + 20, legend_y, label, size=12)
        lx += 20 + text_width(label, 12) + 28
    if not all(sampled for _, _, _, sampled in rows):
        svg.text(24, legend_y + 20, "* no samples in the results: drawn from p50, p90, p99 and max only (dashed).",
                 size=12, fill=MUTED)
    return svg


def handoff_cdf_chart(handoff):
    """The share of handoffs done within a time, per lock with samples, on a log time axis."""
    rows = [(name, label, sorted(handoff["setups"][name]["samples_us"]))
            for name, label, _, sampled in handoff_rows(handoff) if sampled]
    if not rows:
        return None
    palette = ["#009e73", "#cc79a7", "#6e5494", "#8c959f", "#996633", "#1b7c83"]
    colors = {}
    other = 0
    for name, _, _ in rows:
        if name == "STARTER":
            colors[name] = OURS_COLOR
        elif name == REFERENCE_SETUP:
            colors[name] = REFERENCE_COLOR
        else:
            colors[name] = palette[other % len(palette)]
            other += 1
    legend_height = sum(6 + 14 * len(wrap(label, 30)) + 22 for _, label, _ in rows)
    width = 900
    left, right, top = 64, 24, 76
    bottom_axis = max(top + 300, top + legend_height)
    height = bottom_axis + 56
    plot_right = width - right - 250
    low = min(samples[0] for _, _, samples in rows)
    high = max(samples[-1] for _, _, samples in rows)
    def y(share):
        return bottom_axis - (bottom_axis - top) * share

    title = "Handoff latency: share of handoffs done within a time"
    description = ("Empirical cumulative distribution per lock on a logarithmic time axis in milliseconds: %s." %
                   "; ".join("%s: half within %s ms, 99%% within %s ms" % (
                       label, ms_label(percentile(samples, 50)), ms_label(percentile(samples, 99)))
                       for _, label, samples in rows))
    svg = Svg(width, height, title, description)
    svg.text(24, 28, title, size=16, weight="bold")
    svg.text(24, 48, "For each lock, the fraction of its handoffs whose release → acquired time was at most x. "
             "Further left is faster; a curve's upper end is its tail.", size=12, fill=MUTED)
    x = log_time_axis(svg, low, high, left, plot_right, top, bottom_axis)
    for share in (0, 0.25, 0.5, 0.75, 0.9, 1.0):
        svg.line(left, y(share), plot_right, y(share), stroke=GRID, width=1 if share in (0, 0.5, 1.0) else 0.6,
                 dash=None if share in (0, 0.5, 1.0) else "2,3")
        svg.text(left - 6, y(share) + 4, "%g%%" % (100 * share), size=11, anchor="end", fill=MUTED)
    svg.line(left, bottom_axis, plot_right, bottom_axis, stroke=MUTED)
    svg.line(left, top, left, bottom_axis, stroke=MUTED)
    svg.text((left + plot_right) / 2, bottom_axis + 36, "release → acquired (ms, log scale)", size=12,
             anchor="middle")
    svg.add('<text x="16" y="%s" font-size="12" text-anchor="middle" fill="%s" transform="rotate(-90 16 %s)">'
            'handoffs done (%% of all)</text>' % (px((top + bottom_axis) / 2), INK, px((top + bottom_axis) / 2)))
    # Draw the peers first, so that ours and the reference stay on top.
    order = [row for row in rows if row[0] not in ("STARTER", REFERENCE_SETUP)] + \
        [row for row in rows if row[0] == REFERENCE_SETUP] + [row for row in rows if row[0] == "STARTER"]
    for name, _, samples in order:
        count = len(samples)
        points = ["%s,%s" % (px(x(samples[0])), px(y(0)))]
        for index, value in enumerate(samples):
            if index + 1 < count and samples[index + 1] == value:
                continue
            points.append("%s,%s" % (px(x(value)), px(y(index / count))))
            points.append("%s,%s" % (px(x(value)), px(y((index + 1) / count))))
        ours = name == "STARTER"
        svg.add('<polyline points="%s" fill="none" stroke="%s" stroke-width="%s"%s/>' % (
            " ".join(points), colors[name], "3" if ours else "2",
            ' stroke-dasharray="6,3"' if name == REFERENCE_SETUP else ""))
    legend_x = plot_right + 24
    legend_y = top + 10
    svg.text(legend_x, legend_y - 14 + 4, "lock (median / p99, ms)", size=11, fill=MUTED)
    for name, label, samples in rows:
        ours = name == "STARTER"
        legend_y += 6
        svg.add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>' % (
            px(legend_x), px(legend_y), px(legend_x + 26), px(legend_y), colors[name], "3" if ours else "2",
            ' stroke-dasharray="6,3"' if name == REFERENCE_SETUP else ""))
        for index, part in enumerate(wrap(label, 30)):
            svg.text(legend_x + 32, legend_y + 4 + 14 * index, part, size=11, weight="bold" if ours else None)
        legend_y += 14 * len(wrap(label, 30))
        svg.text(legend_x + 32, legend_y + 4, "%s / %s" % (ms_label(percentile(samples, 50)),
                                                          ms_label(percentile(samples, 99))), size=11, fill=MUTED)
        legend_y += 22
    return svg
