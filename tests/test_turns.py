"""Writers to one SQLite file take turns (counter/storage/turns.py): a write waits while
another holds the turn, in this process or another, and no longer than its timeout; its
announcements to live pages go out after it."""

from __future__ import annotations

import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient

from counter.storage import push
from counter.storage.models import db
from counter.storage.turns import NoTurn, Turn, turn_of

from helpers import api_deal, api_start

HOLD_S = 0.3


def test_a_thread_waits_for_the_turn_another_thread_holds(tmp_path: Path) -> None:
    turn = Turn(str(tmp_path / "db-turn"))
    order: list[str] = []
    holding = threading.Event()

    def first() -> None:
        with turn.taken(5):
            holding.set()
            time.sleep(HOLD_S)
            order.append("first done")

    thread = threading.Thread(target=first)
    thread.start()
    holding.wait(5)
    with turn.taken(5):
        order.append("second in")
    thread.join()
    assert order == ["first done", "second in"]


def test_a_process_waits_for_the_turn_another_process_holds(tmp_path: Path) -> None:
    path = tmp_path / "db-turn"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, time\n"
            f"fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            f"time.sleep({HOLD_S})\n"
            "print('letting go', flush=True)\n"
            "fcntl.flock(fd, fcntl.LOCK_UN)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        with Turn(str(path)).taken(5):
            # In only once the other process let go: it had said so just before.
            said, _, _ = select.select([holder.stdout], [], [], 0)
    finally:
        holder.communicate(timeout=10)
    assert said


@contextmanager
def held_by_another_thread(turn: Turn) -> Iterator[None]:
    """``turn`` held by another thread until the block ends."""
    holding, done = threading.Event(), threading.Event()

    def holder() -> None:
        with turn.taken(5):
            holding.set()
            done.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    holding.wait(5)
    try:
        yield
    finally:
        done.set()
        thread.join()


def test_a_turn_that_does_not_come_in_time_is_not_taken(tmp_path: Path) -> None:
    turn = Turn(str(tmp_path / "db-turn"))
    started = time.monotonic()
    with held_by_another_thread(turn), pytest.raises(NoTurn), turn.taken(0.05):
        pass
    assert time.monotonic() - started < 2


def test_a_write_inside_a_write_of_the_same_thread_holds_the_turn_already(tmp_path: Path) -> None:
    turn = Turn(str(tmp_path / "db-turn"))
    with turn.taken(5), turn.taken(0.01):
        pass
    with turn.taken(0.01):  # let go of entirely
        pass


@pytest.mark.sqlite_files  # the turn is a file beside SQLite's; PostgreSQL orders its own writers
def test_a_write_whose_turn_does_not_come_in_time_is_refused_as_busy(
    app: Flask, client: FlaskClient
) -> None:
    match = api_start(client, players=["Ana", "Boris"])
    app.config["WRITE_LOCK_TIMEOUT_MS"] = 100
    with app.app_context():
        turn = turn_of(db.engine)
    assert turn is not None
    with held_by_another_thread(turn):
        answer = api_deal(client, match["id"], 1, "normal")
    assert answer.status_code == 503
    assert "busy" in answer.json["error"]
    assert client.get(f"/api/matches/{match['id']}").json["deals"] == []


def test_a_writes_announcements_go_out_after_its_turn(app: Flask) -> None:
    with app.app_context():
        watcher = push.hub().watch(7)
        try:
            with push.after_writing():
                push.changed(7)
                assert not watcher.arrived.is_set()  # held while the write holds its turn
            assert watcher.wait(1) == push.CHANGED
        finally:
            push.hub().unwatch(watcher)
