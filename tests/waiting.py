"""Waiting for a condition, never for a set time: a test waits as long as what it waits for
takes, and a deadline says when that is too long."""

from __future__ import annotations

import time
from collections.abc import Callable

EVERY_S = 0.05  # between two looks at a condition


def until(condition: Callable[[], object], *, within: float, every: float = EVERY_S) -> bool:
    """Whether ``condition()`` came to hold within ``within`` seconds, asked every ``every``."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(every)
    return True
