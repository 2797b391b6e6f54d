"""The section "One million distinct keys": what a million locks taken and released leave behind, in the JVM's
heap after a full GC and in Redis (MillionKeys in benchmarks/results/scale.json), and its line of the page's
summary."""

from . import fmt
from .fmt import mib, number, percent_change, signed, signed_mib


def summary(scale):
    """The line of the page's summary, none without runs."""
    if not scale or not scale.get("runs"):
        return []
    return ["- **One million distinct keys** (%d threads): %s." % (scale.get("threads", 0), "; ".join(
        "*%s*, %s" % (run_entry.get("name", "run"), run_summary(run_entry)) for run_entry in scale["runs"]))]


def run_summary(run_entry):
    """One run in a few words: its keys, its time and what it changed."""
    heap_before, heap_after = run_entry.get("heap_before_bytes"), run_entry.get("heap_after_bytes")
    redis_before, redis_after = run_entry.get("redis_used_memory_before"), run_entry.get("redis_used_memory_after")
    keys_before, keys_after = run_entry.get("redis_keys_before"), run_entry.get("redis_keys_after")
    seconds = run_entry.get("seconds")
    parts = ["%s keys in %s" % (number(run_entry.get("keys")), "%s s" % number(seconds, 1) if seconds is not None
                                else "an unknown time")]
    if heap_before is not None and heap_after is not None:
        parts.append("JVM heap after a full GC %s → %s (%s)" % (mib(heap_before), mib(heap_after),
                                                               percent_change(heap_before, heap_after)))
    if redis_before is not None and redis_after is not None:
        parts.append("Redis `used_memory` %s" % signed_mib(redis_after - redis_before))
    if keys_before is not None and keys_after is not None:
        parts.append("keys in Redis %s → %s" % (number(keys_before), number(keys_after)))
    return ", ".join(parts)


def section(scale, w):
    """The section: a table per run, or why there is none."""
    if not fmt.section(w, "One million distinct keys", scale, "there is no `benchmarks/results/scale.json`"):
        return
    runs = scale.get("runs") or []
    if not runs:
        w("`benchmarks/results/scale.json` holds no runs.")
        w("")
        return
    w("Each run takes and releases a lock on this starter for each of its distinct keys, with %s threads, and "
      "records three things before and after: the JVM heap in use after a full garbage collection, Redis's "
      "`used_memory` and the number of keys in Redis. The heap shows whether the client keeps anything per key "
      "once its locks are released; Redis's memory and key count show what the released locks leave on the "
      "server. *Change* is after ÷ before for the heap (as a percentage), and after − before for Redis." % (
          scale.get("threads", "n/a")))
    if scale.get("command"):
        w("")
        w("Command: `%s`." % scale["command"])
    w("")
    for run_entry in runs:
        keys = run_entry.get("keys")
        seconds = run_entry.get("seconds")
        heap_before, heap_after = run_entry.get("heap_before_bytes"), run_entry.get("heap_after_bytes")
        redis_before, redis_after = run_entry.get("redis_used_memory_before"), run_entry.get("redis_used_memory_after")
        keys_before, keys_after = run_entry.get("redis_keys_before"), run_entry.get("redis_keys_after")
        w("### %s" % run_entry.get("name", "run"))
        w("")
        w("| | before | after | change |")
        w("|---|---:|---:|---:|")
        rate = (" (%s keys/s)" % number(keys / seconds)) if keys and seconds else ""
        w("| distinct keys locked and released | | %s | |" % number(keys))
        w("| duration | | %s | |" % (("%s s%s" % (number(seconds, 1), rate)) if seconds is not None else "n/a"))
        w("| JVM heap in use after a full GC | %s | %s | %s |" % (
            mib(heap_before), mib(heap_after), percent_change(heap_before, heap_after)))
        if redis_before is not None and redis_after is not None:
            difference = redis_after - redis_before
            per_key = (", %s bytes per key" % number(difference / keys, 1)) if keys else ""
            change = "%s%s" % (signed_mib(difference), per_key)
        else:
            change = "n/a"
        w("| Redis `used_memory` | %s | %s | %s |" % (mib(redis_before), mib(redis_after), change))
        key_change = signed(keys_after - keys_before) if keys_before is not None and keys_after is not None else "n/a"
        w("| keys in Redis | %s | %s | %s |" % (number(keys_before), number(keys_after), key_change))
        w("")
