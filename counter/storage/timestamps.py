"""Times as the counter writes them in every answer, export and page: UTC, ISO 8601 to
the second, ending in Z (the API's ``Timestamp``). Stored times are naive UTC."""

from __future__ import annotations

from datetime import datetime


def iso_utc(value: datetime | None) -> str | None:
    """A stored time (naive UTC) as written everywhere: ``2026-11-30T15:07:42Z``."""
    return None if value is None else value.isoformat(timespec="seconds") + "Z"
