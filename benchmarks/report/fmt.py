"""Number and table formatting shared by the sections of docs/PERFORMANCE.md: numbers with thousands separators,
JMH errors and ratios as text, Redis command counts per cycle, sizes in MiB, signed differences, and the title of a
section whose results may be missing."""

import math
import re

from .stats import known, ratio, verdict

# The command that renders the page, as the lists of commands a run made end with it
RENDER_COMMAND = "python3 benchmarks/report.py render benchmarks/results docs/PERFORMANCE.md"


def number(value, digits=0):
    """The value with thousands separators and the given decimals; "n/a" for None or NaN."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return "{:,.{}f}".format(value, digits)


def error(metric, digits=0):
    """A JMH metric's error as "± 1,234"; "n/a" when JMH could not compute one."""
    value = metric.get("scoreError")
    if not known(value):
        return "n/a"
    return "± " + number(value, digits)


def format_ratio(pair):
    """A (ratio, error) pair as "0.97 ± 0.03", or "0.97" without an error."""
    value, err = pair
    return ("%.2f" % value) + ((" ± %.2f" % err) if err is not None else "")


def peer_row(first_cell, ours, peer, theirs):
    """A table row of this starter's JMH metric beside a peer's, and their ratio, judged against its error."""
    value, err = ratio(ours, theirs)
    return "| %s | %s %s | %s | %s %s | %s (%s) |" % (first_cell, number(ours["score"]), error(ours), peer,
                                                     number(theirs["score"]), error(theirs),
                                                     format_ratio((value, err)), verdict(value, err))


def trim(value):
    """At most two decimals, without trailing zeros: 2.50 -> "2.5", 2.00 -> "2"."""
    return ("%.2f" % value).rstrip("0").rstrip(".")


def per_cycle(counts, cycles):
    """Redis commands per cycle: the sum of the counts ({command: count}) over the cycles counted."""
    return sum(counts.values()) / cycles


def breakdown(counts, cycles):
    """The commands per cycle one by one, most frequent first: "SET 1, EVALSHA 1"."""
    if not counts:
        return "none"
    return ", ".join("%s %s" % (name.upper(), trim(count / cycles)) for name, count in
                     sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def counted(counts, cycles):
    """Redis commands per cycle, in all and one by one: "2: SET 1, EVALSHA 1"."""
    return "%s: %s" % (trim(per_cycle(counts, cycles)), breakdown(counts, cycles))


def ms(micros):
    """Microseconds as milliseconds with two decimals: "1.23 ms"."""
    return "%.2f ms" % (micros / 1000.0)


def duration(seconds):
    """Whole seconds as minutes and seconds: "27 min 48 s"."""
    return "%d min %02d s" % (seconds // 60, seconds % 60)


def mib(value):
    """Bytes in MiB with one decimal: "12.3 MiB"."""
    return "n/a" if value is None else "%s MiB" % number(value / 1048576.0, 1)


def signed(value, digits=0):
    """A difference with its sign: "+12", "-3", "0"."""
    return ("+" if value > 0 else "") + number(value, digits) if value else number(0, digits)


def signed_mib(value):
    """A difference in bytes as signed MiB: "+1.5 MiB"."""
    return ("+" if value > 0 else "") + mib(value) if value else mib(0)


def percent_change(before, after):
    """After against before as a signed percentage: "+1.2%"."""
    if before is None or after is None or not before:
        return "n/a"
    change = 100.0 * (after / before - 1)
    return "%s%%" % signed(change, 1)


def ordinal(n):
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st."""
    return "%d%s" % (n, "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def quote(value):
    """A JMH setting in double quotes, "?" when it is missing."""
    return "\"%s\"" % value if value else "?"


def strip_markup(label):
    """A table label without Markdown's emphasis and code marks."""
    return re.sub(r"[*`]", "", label)


def threads_text(threads):
    """"1 thread", "8 threads"."""
    return "%d thread%s" % (threads, "" if threads == 1 else "s")


def titled(w, title, present, missing="Not measured in this run."):
    """Write a section's title; when present is false, write the sentence missing in its place and return False."""
    w("## " + title)
    w("")
    if not present:
        w(missing)
        w("")
        return False
    return True


def section(w, title, results, missing):
    """Write a section's title; return False, after saying why, when its results are missing or skipped."""
    return titled(w, title, results and "skipped" not in results,
                  "Not run for this page: %s." % ((results or {}).get("skipped") or missing))


def code_block(w, lines, language=""):
    """Write the lines as a fenced code block, then a blank line."""
    w("```" + language)
    for line in lines:
        w(line)
    w("```")
    w("")
