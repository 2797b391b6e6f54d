"""Tests of the report package: the committed results (benchmarks/results/) render the committed page
(docs/PERFORMANCE.md) and its charts (docs/performance/*.svg) byte for byte, on any machine; and the statistics
helpers give the values worked out by hand.

Run from the repository root (standard library only, about half a minute):

    python3 -m unittest discover -s benchmarks -p 'test_*.py' -v

or, from benchmarks/, `python3 -m unittest report.test_render -v`. The documentation tests run it too
(docs-tests, PerformancePageTests). When the page test fails after a change to the renderer, the change altered
the page: render it again (`python3 benchmarks/report.py render benchmarks/results docs/PERFORMANCE.md`) and
commit the new page with the change, or fix the renderer."""

import difflib
import math
import os
import tempfile
import unittest
from unittest import mock

from . import fmt, page, stats

BENCHMARKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCHMARKS)
RESULTS = os.path.join(BENCHMARKS, "results")
DOCS = os.path.join(ROOT, "docs")


def first_difference(expected, actual, name, context=3, limit=40):
    """A unified diff of the committed and the rendered file, cut after its first lines."""
    diff = list(difflib.unified_diff(expected.decode("utf-8").splitlines(), actual.decode("utf-8").splitlines(),
                                     "committed " + name, "rendered " + name, n=context, lineterm=""))
    if not diff:
        return "%s: the lines are the same, the bytes are not (line endings, or the newline at the end)" % name
    if len(diff) > limit:
        diff = diff[:limit] + ["... (%d more lines of diff)" % (len(diff) - limit)]
    return "\n".join(diff)


class RenderTests(unittest.TestCase):
    """The committed results render the committed page and charts."""

    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.TemporaryDirectory()
        cls.output = os.path.join(cls.directory.name, "PERFORMANCE.md")
        # Another machine than the run's: the page must not depend on the machine that renders it
        with mock.patch("os.cpu_count", return_value=64):
            page.render(RESULTS, cls.output)

    @classmethod
    def tearDownClass(cls):
        cls.directory.cleanup()

    def assertSameBytes(self, committed, rendered, name):
        with open(committed, "rb") as file:
            expected = file.read()
        with open(rendered, "rb") as file:
            actual = file.read()
        if expected != actual:
            self.fail("%s is not what `benchmarks/report.py render benchmarks/results` writes:\n%s" % (
                name, first_difference(expected, actual, name)))

    def test_the_committed_results_render_the_committed_page(self):
        self.assertSameBytes(os.path.join(DOCS, "PERFORMANCE.md"), self.output, "docs/PERFORMANCE.md")

    def test_the_committed_results_draw_the_committed_charts(self):
        charts = os.path.join(self.directory.name, "performance")
        committed = os.path.join(DOCS, "performance")
        self.assertEqual(sorted(os.listdir(committed)), sorted(os.listdir(charts)))
        for name in sorted(os.listdir(committed)):
            with self.subTest(chart=name):
                self.assertSameBytes(os.path.join(committed, name), os.path.join(charts, name),
                                     "docs/performance/" + name)


class StatisticsTests(unittest.TestCase):
    """The statistics helpers on hand-made numbers."""

    def test_a_ratio_propagates_the_relative_errors_of_both_scores(self):
        # 150 ± 9 is ± 6 %, 50 ± 4 is ± 8 %: 3 × √(0.06² + 0.08²) = 3 × 0.1
        value, err = stats.ratio({"score": 150.0, "scoreError": 9.0}, {"score": 50.0, "scoreError": 4.0})
        self.assertAlmostEqual(3.0, value)
        self.assertAlmostEqual(0.3, err)
        self.assertEqual("3.00 ± 0.30", fmt.format_ratio((value, err)))

    def test_a_ratio_has_no_error_when_jmh_could_not_compute_one(self):
        self.assertEqual((2.0, None), stats.ratio({"score": 200.0, "scoreError": "NaN"},
                                                  {"score": 100.0, "scoreError": 5.0}))
        self.assertEqual((2.0, None), stats.ratio({"score": 200.0, "scoreError": 10.0},
                                                  {"score": 100.0, "scoreError": float("nan")}))

    def test_a_ratio_is_judged_against_its_error(self):
        self.assertEqual("faster", stats.verdict(1.10, 0.05))
        self.assertEqual("slower", stats.verdict(0.90, 0.05))
        self.assertEqual("within the error of", stats.verdict(1.04, 0.05))
        self.assertEqual("faster", stats.verdict(1.0, None))

    def test_the_interval_of_a_mean(self):
        # 1..5: mean 3, standard deviation √2.5; 4 degrees of freedom: 8.610 × √2.5 / √5 = 8.610 × √0.5
        mean, half_width = stats.interval([1, 2, 3, 4, 5])
        self.assertEqual(3, mean)
        self.assertAlmostEqual(1.0, half_width / (8.610 * math.sqrt(0.5)), delta=0.0005)
        self.assertTrue(math.isnan(stats.interval([7.0])[1]))

    def test_before_and_after_overlap_or_not(self):
        self.assertEqual("within error", stats.change_verdict(100, 5, 108, 5))
        self.assertEqual("faster", stats.change_verdict(100, 5, 120, 5))
        self.assertEqual("**slower**", stats.change_verdict(100, 5, 80, 5))
        self.assertEqual("faster", stats.change_verdict(100, 5, 80, 5, higher_is_better=False))

    def test_student_t_quantiles_match_the_printed_tables(self):
        # t(0.975, 10) = 2.228, t(0.9995, 4) = 8.610, t(0.9995, 30) = 3.646, and the heavy tails of one and two
        # degrees of freedom: t(0.9995, 1) = 636.6, t(0.9995, 2) = 31.60 (within 0.05 %)
        for probability, df, printed in ((0.975, 10, 2.228), (0.9995, 4, 8.610), (0.9995, 30, 3.646),
                                         (0.9995, 1, 636.6), (0.9995, 2, 31.60)):
            self.assertAlmostEqual(1.0, stats.student_t_quantile(probability, df) / printed, delta=0.0005)
        # One degree of freedom is the Cauchy distribution, whose quantile is tan(π (p − ½))
        self.assertAlmostEqual(1.0, stats.student_t_quantile(0.9995, 1) / math.tan(math.pi * 0.4995), delta=1e-6)

    def test_merged_forks_pool_every_iteration(self):
        first = {"forks": 1, "primaryMetric": {"score": 1.5, "scoreError": 1.0, "rawData": [[1.0, 2.0]]},
                 "secondaryMetrics": {"rejected": {"score": 0.0}}}
        second = {"forks": 1, "primaryMetric": {"score": 4.0, "scoreError": 1.0, "rawData": [[3.0, 4.0, 5.0]]},
                  "secondaryMetrics": {"rejected": {"score": 2.0}}}
        merged = stats.merge_forks([first, second])
        self.assertEqual(2, merged["forks"])
        self.assertEqual([[1.0, 2.0], [3.0, 4.0, 5.0]], merged["primaryMetric"]["rawData"])
        self.assertEqual(3.0, merged["primaryMetric"]["score"])
        # 1..5 again, with the exact t(0.9995, 4) = 8.6103 instead of the table's 8.61
        self.assertAlmostEqual(8.6103 * math.sqrt(0.5), merged["primaryMetric"]["scoreError"], places=3)
        self.assertEqual(1.0, merged["secondaryMetrics"]["rejected"]["score"])

    def test_percentiles_are_nearest_ranks(self):
        values = list(range(1, 11))
        self.assertEqual(5, stats.percentile(values, 50))
        self.assertEqual(9, stats.percentile(values, 90))
        self.assertEqual(10, stats.percentile(values, 99))
        self.assertEqual(1, stats.percentile(values, 0))

    def test_ratio_intervals_keep_the_central_95_percent(self):
        # Ratios 1..40: the 2.5th percentile is the 1st of 40, the 97.5th the 39th
        self.assertEqual((1.0, 39.0), stats.ratio_interval(list(range(1, 41)), [1] * 40))
        self.assertEqual((2.0, 2.0), stats.median_ratio_interval([4, 4, 4], [2, 2, 2]))


if __name__ == "__main__":
    unittest.main()
