"""Stored times (naive UTC) as every answer, export and page writes them: 2026-11-30T15:07:42Z."""

from datetime import datetime


def iso_utc(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat(timespec="seconds") + "Z"
