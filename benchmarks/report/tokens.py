"""The section "Owner tokens": the time to draw one owner token (OwnerTokenBenchmark in benchmarks/results/
jmh.json) with 1 and 8 threads, for each way of drawing it that was weighed and for the starter's own."""

from .fmt import number, threads_text, titled

OWNER_TOKEN_ROWS = [
    ("SHARED_NATIVE_PRNG", "one shared `new SecureRandom()` (`NativePRNG`; the owner token before this change)"),
    ("SHARED_DRBG", "one shared `DRBG`"),
    ("STRIPED_DRBG", "16 `DRBG` instances, stripe picked at random"),
    ("THREAD_LOCAL_DRBG", "one `DRBG` per thread"),
    ("STRIPED_SHA1PRNG", "16 `SHA1PRNG` instances, stripe picked at random"),
    ("STRIPED_BUFFERED_DRBG", "16 `DRBG` instances, each filling a buffer of 32 tokens, stripe picked at random"),
    ("ownerTokens", "**`OwnerTokens.next()`**: AES-256-CTR keystream stripes keyed from `DRBG`, 8 per processor, "
                    "one per thread, a buffer of 256 tokens each"),
]


def section(tokens, machine_info, w):
    """The section; tokens maps (generator, threads) to its JMH result, machine_info is the run's machine.json."""
    if not titled(w, "Owner tokens", tokens):
        return
    threads = sorted({count for (_, count) in tokens})
    w("`OwnerTokenBenchmark`: one owner token (128 random bits, Base64 URL-encoded), average time per call, drawn "
      "by 1 and by 8 threads at once, for each way of drawing it that was weighed and for the starter's own. With "
      "8 threads on %s cores a call also waits for a core, so a generator on which no thread waits for another shows "
      "about four times its one-thread time." % machine_info.get("nproc", "n/a"))
    w("")
    w("| generator | %s |" % " | ".join("ns per token, %s" % threads_text(t) for t in threads))
    w("|---|%s|" % "|".join("---:" for _ in threads))
    for key, label in OWNER_TOKEN_ROWS:
        cells = []
        for t in threads:
            entry = tokens.get((key, t))
            cells.append("%s ± %s" % (number(entry["primaryMetric"]["score"]),
                                      number(entry["primaryMetric"]["scoreError"])) if entry else "n/a")
        if any(cell != "n/a" for cell in cells):
            w("| %s | %s |" % (label, " | ".join(cells)))
    w("")
