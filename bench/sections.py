"""Sections of bench/RESULTS.md that a benchmark other than bench.run writes (tap to
paint, live watchers, capacity): each between its markers, kept as it is when bench.run
writes the rest of the file, replaced when its own benchmark runs again."""

from __future__ import annotations

from pathlib import Path

KEPT = ("tap-to-paint", "watchers", "capacity", "evening")


def marks(name: str) -> tuple[str, str]:
    return f"<!-- {name} -->", f"<!-- /{name} -->"


def found(text: str, name: str) -> str | None:
    """The section ``name`` of ``text``, markers included, if it has one."""
    begin, end = marks(name)
    if begin not in text or end not in text:
        return None
    return begin + text.split(begin, 1)[1].split(end, 1)[0] + end


def write(path: Path, name: str, body: str) -> None:
    """Put the section ``name`` (``body`` without its markers) in place of the old one in
    ``path``, or at its end."""
    begin, end = marks(name)
    section = f"{begin}\n{body.strip()}\n{end}"
    old = path.read_text() if path.exists() else ""
    if (earlier := found(old, name)) is not None:
        new = old.replace(earlier, section)
    else:
        new = old.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(new)
