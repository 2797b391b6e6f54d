"""The section "HTTP throughput of the sample app": wrk against the sample app's registration endpoints, with and
without @ExclusiveRequest, on the in-memory store and on Redis beside a lock made by hand (benchmarks/http/run.sh,
benchmarks/results/http.json)."""

from .fmt import number, titled


def section(http, w):
    """The section, or why it is missing."""
    if not titled(w, "HTTP throughput of the sample app", http):
        return
    if "skipped" in http:
        w("Skipped in this run: %s." % http["skipped"])
        w("")
        return
    w("`benchmarks/http/run.sh` builds and starts the sample app (`java -jar sample-app/target/lock-sample-app-*.jar "
      "--sample.points-service.latency=0ms`, so the simulated external call costs nothing), and drives it with "
      "%s, %d threads and %d connections on the same 2 cores. Every request is a `POST` of a user name no request "
      "used before (`benchmarks/http/register.lua`), so each one runs the whole registration: on `/api/users` under "
      "`@ExclusiveRequest(key = \"#userName\")`, on `/api/unsafe/users` without it. Both endpoints are warmed up "
      "for %s, then measured in turn for %s each, %d rounds. *memory*: the default configuration (locks and users "
      "in memory); *redis*: the `redis` profile against a `redis-server` of its own (locks **and users** in Redis, "
      "so every endpoint talks to Redis), where `/api/raw/users` is measured too: the same registration under a lock "
      "made by hand with `SET key token NX PX 10000` and a compare-and-delete script (no renewal, no waiting, no "
      "fencing), the floor for a correct Redis lock." % (
          http.get("wrk", "wrk"), http["threads"], http["connections"], http["warmup"], http["duration"],
          http.get("rounds", 1)))
    w("")
    w("| store | endpoint | requests/s per round | mean requests/s | ÷ unlocked | ÷ hand-made lock "
      "| latency p50 / p99 (ms) | non-2xx | socket errors |")
    w("|---|---|---|---:|---:|---:|---|---:|---:|")
    by_mode = {}
    for run_entry in http["runs"]:
        by_mode.setdefault(run_entry["mode"], {}).setdefault(run_entry["endpoint"], []).append(run_entry["summary"])
    for mode, endpoints in by_mode.items():
        rates = {endpoint: [s["requests"] / (s["duration_us"] / 1e6) for s in summaries]
                 for endpoint, summaries in endpoints.items()}
        means = {endpoint: sum(values) / len(values) for endpoint, values in rates.items()}
        for endpoint, summaries in endpoints.items():
            relative = ("%.2f" % (means[endpoint] / means["/api/unsafe/users"])
                        if endpoint != "/api/unsafe/users" and "/api/unsafe/users" in means else "—")
            to_raw = ("%.2f" % (means[endpoint] / means["/api/raw/users"])
                      if endpoint == "/api/users" and "/api/raw/users" in means else "—")
            latencies = "; ".join("%.1f / %.1f" % (s["latency_p50_us"] / 1000, s["latency_p99_us"] / 1000)
                                  for s in summaries)
            w("| %s | `POST %s` | %s | %s | %s | %s | %s | %d | %d |" % (
                mode, endpoint, ", ".join(number(r) for r in rates[endpoint]), number(means[endpoint]), relative,
                to_raw, latencies,
                sum(s["non_2xx_3xx"] for s in summaries), sum(s["socket_errors"] for s in summaries)))
    w("")
    failed = sum(r["summary"]["non_2xx_3xx"] + r["summary"]["socket_errors"] for r in http["runs"])
    if failed:
        w("**These figures do not measure the registration:** %s requests were answered with an error status "
          "or failed, so the endpoints mostly rejected their input. Look at `benchmarks/results/wrk.log` and the "
          "sample app's logs there." % number(failed))
        w("")
    w("With the in-memory store the lock is a few hundred nanoseconds in a request that costs tens of "
      "microseconds of CPU (HTTP parsing, JSON, the registration), so the two endpoints should be within noise of "
      "each other. With Redis, both locked endpoints add the lock's two requests, and the second name check inside "
      "the lock, to the unlocked registration's own Redis requests (checking the name, storing the user, indexing "
      "it by name), with wrk, the app and Redis sharing 2 cores: the difference to the unlocked endpoint is mostly "
      "those extra round trips, and the difference between `@ExclusiveRequest` and the hand-made lock is what the "
      "starter costs on top of them (the proxy, key resolution, the lease and its renewal registration). Both runs "
      "are CPU-bound on this machine, so these are ratios to compare, not capacity figures.")
    w("")
