"""Writers to one SQLite file take turns (counter/services/turns.py): a write waits while
another holds the turn, in this process or another, and no longer than its timeout."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from counter.services.turns import Turn

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
            "import fcntl, os, sys, time\n"
            f"fd = os.open({str(path)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            f"time.sleep({HOLD_S})\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    started = time.monotonic()
    with Turn(str(path)).taken(5):
        waited = time.monotonic() - started
        assert holder.poll() is not None  # the other process had ended, and its lock with it
    holder.communicate()
    assert waited > HOLD_S / 3


def test_a_write_goes_on_after_its_timeout_without_the_turn(tmp_path: Path) -> None:
    turn = Turn(str(tmp_path / "db-turn"))
    holding, done = threading.Event(), threading.Event()

    def holder() -> None:
        with turn.taken(5):
            holding.set()
            done.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    holding.wait(5)
    started = time.monotonic()
    with turn.taken(0.05):
        waited = time.monotonic() - started
    done.set()
    thread.join()
    assert waited < 2  # it went on to SQLite's own lock, which refuses in time


def test_a_write_inside_a_write_of_the_same_thread_holds_the_turn_already(tmp_path: Path) -> None:
    turn = Turn(str(tmp_path / "db-turn"))
    with turn.taken(5), turn.taken(0.01):
        pass
    with turn.taken(0.01):  # let go of entirely
        pass
