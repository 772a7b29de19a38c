"""The benchmark's ratios: written down, never asserted, and never a crash of a quick run."""

from __future__ import annotations

import math

from bench.run import Run, paired_ratio


def run(requests_per_second: float) -> Run:
    return Run(requests_per_second, p50_ms=1.0, p99_ms=1.0, errors=0)


def test_a_ratio_is_the_median_of_each_alternations_own() -> None:
    assert paired_ratio([run(10), run(30), run(20)], [run(20), run(30), run(80)]) == 0.5


def test_an_alternation_whose_second_side_answered_nothing_is_left_out() -> None:
    assert paired_ratio([run(10), run(20)], [run(0), run(40)]) == 0.5


def test_with_no_alternation_left_the_ratio_is_not_a_number() -> None:
    assert math.isnan(paired_ratio([run(10)], [run(0)]))
