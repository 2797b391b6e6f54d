"""The section "Interceptor overhead": the time per call of an @ExclusiveRequest method on the in-memory store
beside the same method unannotated, on a proxied bean and locked by hand (InterceptorBenchmark in
benchmarks/results/jmh.json)."""

from .fmt import error, number, titled

INTERCEPTOR = [
    ("plainMethod", "plain method, bean not proxied (baseline)"),
    ("unannotatedMethodOnProxy", "unannotated method of a proxied bean (CGLIB proxy only)"),
    ("exclusiveRequest", "**`@ExclusiveRequest(key = \"#userName\")` method**"),
    ("lockTemplateOnly", "`try (Lease l = locks.acquire(\"user-registration:\" + name, ttl)) {}`, no proxy"),
]


def section(interceptor, w):
    """The section; interceptor maps each InterceptorBenchmark method to its JMH result."""
    if not titled(w, "Interceptor overhead", interceptor):
        return
    base = interceptor.get("plainMethod")
    w("`InterceptorBenchmark`, one thread, average time per call. A real `AnnotationConfigApplicationContext` "
      "wired as the auto-configuration wires it: `ExclusiveRequestAttributeSource`, `ExclusiveRequestAdvisor` "
      "with its `ExclusiveRequestInterceptor` (default options: 30 s time-to-live), the infrastructure "
      "auto-proxy creator with class (CGLIB) proxies, and `LockTemplate` on `InMemoryLockStore`. The method "
      "returns its argument, so the call path is all that is measured. Keys rotate through 1024 user names "
      "(as in the Redis benchmarks): each call locks a key that is free, as distinct requests would; one key "
      "would measure the same path, since every call releases before the next.")
    w("")
    w("The difference between the last two rows is the interception itself (proxy, cached attribute lookup, "
      "SpEL key); the last row is the programmatic lock on the in-memory store: the owner token (see "
      "[Owner tokens](#owner-tokens)), the lease and its bookkeeping, and the store's map updates.")
    w("")
    w("| call | ns per call | error | over the plain method |")
    w("|---|---:|---:|---:|")
    for method, label in INTERCEPTOR:
        entry = interceptor.get(method)
        if not entry:
            continue
        metric = entry["primaryMetric"]
        over = number(metric["score"] - base["primaryMetric"]["score"], 1) if base else "n/a"
        w("| %s | %s | %s | %s |" % (label, number(metric["score"], 1), error(metric, 1),
                                     "—" if method == "plainMethod" else over))
    w("")
