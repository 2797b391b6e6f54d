"""The section "Summary": one line per thread count on this starter's lock cycle against the raw Lettuce floor and
the peers, the Redis round trips of a cycle, the interceptor's cost, and the summary lines of the adapters, the
million keys, the crowd and the lock server, each from its own section's module."""

from . import adapters, crowd, scale, server
from .cycle import VARIANTS
from .fmt import breakdown, format_ratio, number, per_cycle, strip_markup, threads_text, trim
from .stats import ratio


def section(run, w):
    """The section, when the run has lock-cycle results for this starter and the floor at every thread count."""
    cycle = run.cycle
    thread_counts = sorted({threads for (_, threads) in cycle})
    raw = {t: cycle.get(("rawLettuce", t)) for t in thread_counts}
    ours = {t: cycle.get(("lockTemplate", t)) for t in thread_counts}
    if not (run.jmh and all(raw.values()) and all(ours.values())):
        return
    w("## Summary")
    w("")
    for t in thread_counts:
        cycle_lines(cycle, t, raw[t]["primaryMetric"], ours[t]["primaryMetric"], w)
    commands = run.commands
    if commands:
        lt = commands["variants"].get("LOCK_TEMPLATE")
        rl = commands["variants"].get("RAW_LETTUCE")
        if lt and rl:
            w("- **Round trips**: counted with `MONITOR` and `INFO commandstats`, one cycle of ours sends %s "
              "requests to Redis (%s), like the floor's %s (%s); inside its scripts Redis runs %s commands per "
              "cycle against the floor's %s." % (
                  trim(per_cycle(lt["requests"], commands["cycles"])), breakdown(lt["requests"], commands["cycles"]),
                  trim(per_cycle(rl["requests"], commands["cycles"])), breakdown(rl["requests"], commands["cycles"]),
                  trim(per_cycle(lt["inScripts"], commands["cycles"])),
                  trim(per_cycle(rl["inScripts"], commands["cycles"]))))
    for line in adapters.summary(run.adapters):
        w(line)
    interceptor = run.interceptor
    if "plainMethod" in interceptor and "exclusiveRequest" in interceptor:
        plain = interceptor["plainMethod"]["primaryMetric"]["score"]
        locked = interceptor["exclusiveRequest"]["primaryMetric"]["score"]
        w("- **Interceptor**: an `@ExclusiveRequest` method on the in-memory store costs %s ns per call against "
          "%s ns for the same method unannotated: %s ns for the proxy, the SpEL key, the owner token and the "
          "in-memory acquire + release." % (number(locked), number(plain, 1), number(locked - plain)))
    for line in scale.summary(run.scale) + crowd.summary(run.crowd) + server.summary(run.server):
        w(line)
    w("")


def cycle_lines(cycle, t, r, o, w):
    """The line on the cycle with t threads: ours (o) against the floor (r) and the peers."""
    of_floor, of_floor_err = ratio(o, r)
    line = ("- **%s**: an uncontended acquire + release cycle of this starter's `LockTemplate` runs "
            "at %s cycles/s, **%.0f%%%s of the raw Lettuce floor** (%s cycles/s, the same two round trips "
            "written by hand)" % (threads_text(t), number(o["score"]), 100 * of_floor,
                                  " ± %.0f%%" % (100 * of_floor_err) if of_floor_err is not None else "",
                                  number(r["score"])))
    peers = []
    for method, _, label in VARIANTS[2:]:
        peer = cycle.get((method, t))
        if method == "lockTemplateParking":
            if peer:
                line += "; with the reply spin off, %s of the floor" % format_ratio(ratio(peer["primaryMetric"], r))
        elif peer:
            value, err = ratio(o, peer["primaryMetric"])
            peers.append("%.2f× (± %.2f) %s" % (value, err, strip_markup(label)) if err is not None
                         else "%.2f× %s" % (value, strip_markup(label)))
    w(line + ("; against the peers (ours ÷ theirs), " + ", ".join(peers) + "." if peers else "."))
    within = []
    for method, _, label in VARIANTS[1:]:
        entry = cycle.get((method, t))
        if entry:
            value, err = ratio(entry["primaryMetric"], r)
            within.append(err is not None and abs(value - 1) <= err)
    if within and all(within):
        w("  With %s no variant differs from the floor by more than the error bars." % threads_text(t))
