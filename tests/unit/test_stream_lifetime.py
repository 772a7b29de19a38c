"""How long a live stream lasts: long, and not the same for every phone, so that the phones
that came together do not all reconnect together (the streams themselves:
tests/integration/test_live.py)."""

from __future__ import annotations

import pytest

from counter.web.live import lifetime_s


@pytest.mark.parametrize(("draw", "seconds"), [(0.0, 300.0), (0.5, 262.5), (1.0, 225.0)])
def test_a_stream_lasts_between_three_quarters_and_all_of_its_longest(
    draw: float, seconds: float
) -> None:
    assert lifetime_s(300, lambda: draw) == seconds


def test_streams_opened_together_end_at_moments_of_their_own() -> None:
    lifetimes = [lifetime_s(300) for _ in range(100)]
    assert all(225 <= each <= 300 for each in lifetimes)
    assert max(lifetimes) - min(lifetimes) > 30
