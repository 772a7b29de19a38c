"""Times as every answer, export and page writes them: ISO 8601 UTC to the second, with Z."""

from __future__ import annotations

from datetime import datetime


def iso_utc(value: datetime | None) -> str | None:
    """A stored time (naive UTC) as written everywhere: ``2026-11-30T15:07:42Z``."""
    return None if value is None else value.isoformat(timespec="seconds") + "Z"
