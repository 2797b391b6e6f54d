"""Statistics for the benchmark results: ratios of two JMH scores with their propagated error, confidence intervals
of a mean (Student's t quantile, computed), JMH results of several runs merged into one, nearest-rank
percentiles, bootstrap intervals of percentile and median ratios, and the words that judge a ratio against its
error. Standard library only; every random draw is seeded, so the same results give the same page."""

import math
import random
import statistics


def known(err):
    """Whether a JMH error is a number: JMH writes "NaN" when it has too few iterations for one."""
    return not (err is None or err == "NaN" or (isinstance(err, float) and math.isnan(err)))


def ratio_with_error(a, a_err, b, b_err):
    """a / b and its error, propagated to first order from the relative errors of a and b."""
    value = a / b
    return value, value * math.sqrt((a_err / a) ** 2 + (b_err / b) ** 2)


def ratio(a, b):
    """The ratio of two JMH metrics' scores with its error (None when either error is unknown)."""
    if not (known(a.get("scoreError")) and known(b.get("scoreError"))):
        return a["score"] / b["score"], None
    return ratio_with_error(a["score"], a["scoreError"], b["score"], b["scoreError"])


def verdict(value, err):
    """How a throughput ratio compares with 1, given its error."""
    if err is None:
        return "faster" if value >= 1 else "slower"
    if value - err > 1:
        return "faster"
    if value + err < 1:
        return "slower"
    return "within the error of"


def change_verdict(base_mean, base_err, head_mean, head_err, higher_is_better=True):
    """A head revision's mean against a base's: "within error" when their confidence intervals overlap, else
    "faster" or "**slower**"."""
    if abs(head_mean - base_mean) <= base_err + head_err:
        return "within error"
    better = head_mean > base_mean if higher_is_better else head_mean < base_mean
    return "faster" if better else "**slower**"


def student_t_quantile(probability, df):
    """The quantile of Student's t distribution with df degrees of freedom (df >= 1), by bisection on its
    distribution function. With t = sqrt(df) tan(u), the density's integral from 0 to t is that of a constant
    times cos(u) ** (df - 1) from 0 to atan(t / sqrt(df)): smooth and bounded whatever the tail, so that
    Simpson's rule is exact at one degree of freedom (the Cauchy distribution) and close to it at every other."""
    scale = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(math.pi)

    def cdf(x, steps=2000):
        end = math.atan(x / math.sqrt(df))
        h = end / steps
        total = 0.0
        for i in range(steps + 1):
            weight = 1 if i in (0, steps) else (4 if i % 2 else 2)
            total += weight * math.cos(i * h) ** (df - 1)
        return 0.5 + scale * total * h / 3

    low, high = 0.0, 1.0
    while cdf(high) < probability:
        low, high = high, high * 2
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if cdf(middle) < probability else (low, middle)
    return (low + high) / 2


def t_999(df):
    """The two-sided 99.9% quantile of Student's t with df degrees of freedom, as JMH uses it."""
    return student_t_quantile(0.9995, df)


def interval(scores):
    """The mean of the scores and the half-width of its 99.9% confidence interval (NaN for one score)."""
    mean = statistics.fmean(scores)
    if len(scores) < 2:
        return mean, float("nan")
    return mean, t_999(len(scores) - 1) * statistics.stdev(scores) / math.sqrt(len(scores))


def merge_forks(entries):
    """One JMH result from the results of the same benchmark in several JMH runs (one fork or more each): the
    score is the mean of every measured iteration and its error the half-width of the 99.9% confidence interval
    over them, as JMH computes them for several forks of one run; a secondary metric is the mean of the runs'."""
    if len(entries) == 1:
        return entries[0]
    merged = dict(entries[0])
    raw = [fork for entry in entries for fork in entry["primaryMetric"]["rawData"]]
    mean, err = interval([value for fork in raw for value in fork])
    primary = dict(entries[0]["primaryMetric"])
    primary.update({"score": mean, "scoreError": err, "rawData": raw})
    merged["primaryMetric"] = primary
    merged["forks"] = sum(entry.get("forks", 1) for entry in entries)
    secondary = {}
    for name in entries[0].get("secondaryMetrics", {}):
        scores = [entry["secondaryMetrics"][name]["score"] for entry in entries
                  if name in entry.get("secondaryMetrics", {})]
        secondary[name] = dict(entries[0]["secondaryMetrics"][name], score=statistics.fmean(scores))
    merged["secondaryMetrics"] = secondary
    return merged


def percentile(sorted_values, percent):
    """Nearest rank over values sorted in ascending order, as HandoffLatency computes it."""
    index = int(math.ceil(percent / 100.0 * len(sorted_values))) - 1
    return sorted_values[max(0, min(len(sorted_values) - 1, index))]


BOOTSTRAP_RESAMPLES = 2000


def bootstrap_percentiles(samples, percents, rng):
    """Per percent, the percentile of each of BOOTSTRAP_RESAMPLES resamples (with replacement) of the samples."""
    found = {percent: [] for percent in percents}
    for _ in range(BOOTSTRAP_RESAMPLES):
        resample = sorted(rng.choices(samples, k=len(samples)))
        for percent in percents:
            found[percent].append(percentile(resample, percent))
    return found


def ratio_interval(theirs, ours):
    """The central 95% (low, high) of the ratios of two lists of resampled percentiles, pair by pair."""
    ratios = sorted(a / b for a, b in zip(theirs, ours))
    return percentile(ratios, 2.5), percentile(ratios, 97.5)


def median_ratio_interval(numerator, denominator, resamples=2000, seed=42):
    """A bootstrap 95% interval (low, high) of the ratio of the two samples' medians."""
    rng = random.Random(seed)
    ratios = []
    for _ in range(resamples):
        a = [rng.choice(numerator) for _ in numerator]
        b = [rng.choice(denominator) for _ in denominator]
        ratios.append(statistics.median(a) / statistics.median(b))
    ratios.sort()
    return ratios[int(0.025 * resamples)], ratios[int(0.975 * resamples) - 1]
