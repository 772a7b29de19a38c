"""A live stream's watcher in memory: what it makes of the messages it is offered, those of
another release too (the streams themselves: tests/integration/test_live.py)."""

from __future__ import annotations

from counter.storage import push


def test_a_message_of_another_release_is_read_as_a_change() -> None:
    watcher = push.Watcher(3)
    watcher.offer("2026-12-01T00:00:00", '{"id":3,"players":[]}')  # v1 sent the whole match
    assert watcher.wait(0) == push.CHANGED
