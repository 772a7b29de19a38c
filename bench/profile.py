"""Where a request's time goes, in process: wall time, SQL time and a pyinstrument profile.

    python -m bench.profile                                   # SQLite in a temporary folder
    python -m bench.profile --database postgresql://postgres@127.0.0.1:5432/h21
    python -m bench.profile --html /tmp/profiles              # also pyinstrument HTML files

Seeds the benchmark's data (bench/run.py) and sends each request many times through
Flask's test client: a deal into a 1-deal and into a 100-deal match (full answer and
``Prefer: return=minimal``), the main page, and the history page and the API's list of
a browser with 10 and with 1,000 matches. SQL time is summed between
SQLAlchemy's ``before_cursor_execute`` and ``after_cursor_execute``. Needs pyinstrument
(pip install pyinstrument). Nothing is asserted: the figures are printed.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event

from bench.run import DEAL_BODY, MINIMAL, SECRET, fresh_app, seed
from counter.storage.models import db


@dataclass
class Timing:
    label: str
    requests: int
    wall_ms: float
    cpu_ms: float
    sql_ms: float
    statements: float


class SqlClock:
    """Time spent inside the database driver, and the statements sent."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.statements = 0
        self._started = 0.0

    def before(self, *_args: object) -> None:
        self._started = time.perf_counter()

    def after(self, *_args: object) -> None:
        self.seconds += time.perf_counter() - self._started
        self.statements += 1


def client_for(app: Flask, cookie: str) -> FlaskClient:
    client = app.test_client()
    client.set_cookie("session", cookie.removeprefix("session="))
    return client


def scenarios(app: Flask, seeded: dict[str, Any]) -> list[tuple[str, Callable[[int], None]]]:
    cookies = seeded["cookies"]

    def deal(pool: str, headers: dict[str, str]) -> Callable[[int], None]:
        client = app.test_client(use_cookies=False)  # each match's own phone: its cookie
        ids, phones = seeded[pool], seeded["pool cookies"][pool]

        def send(n: int) -> None:
            body = DEAL_BODY.replace("{player}", str(1 + n % 2)).replace(
                "{request}", f"profile-{pool}-{len(headers)}-{n}"
            )
            response = client.post(
                f"/api/matches/{ids[n % len(ids)]}/deals",
                data=body,
                headers={
                    "Content-Type": "application/json",
                    "Cookie": phones[n % len(ids)],
                    **headers,
                },
            )
            assert response.status_code in (200, 201), response.data

        return send

    def get(cookie: str, path: str) -> Callable[[int], None]:
        browser = client_for(app, cookie)

        def send(_n: int) -> None:
            assert browser.get(path, headers={"Accept-Language": "bg"}).status_code == 200

        return send

    return [
        ("deal into a 1-deal match", deal("one", {})),
        ("deal into a 1-deal match, minimal", deal("one", MINIMAL)),
        ("deal into a 100-deal match", deal("hundred", {})),
        ("deal into a 100-deal match, minimal", deal("hundred", MINIMAL)),
        ("main page GET /", get(cookies["main"], "/")),
        ("history GET /matches, 10 matches", get(cookies["10"], "/matches")),
        ("history GET /matches, 1,000 matches", get(cookies["1000"], "/matches")),
        ("API list GET /api/matches, 10 matches", get(cookies["10"], "/api/matches")),
        ("API list GET /api/matches, 1,000 matches", get(cookies["1000"], "/api/matches")),
    ]


def measure(
    app: Flask, label: str, send: Callable[[int], None], requests: int, html: Path | None
) -> Timing:
    from pyinstrument import Profiler

    with app.app_context():
        engine = db.engine
    clock = SqlClock()
    for n in range(20):  # warm up: caches, statement compilation, connections
        send(n + 10_000)
    event.listen(engine, "before_cursor_execute", clock.before)
    event.listen(engine, "after_cursor_execute", clock.after)
    profiler = Profiler(interval=0.0005)
    started, cpu_started = time.perf_counter(), time.process_time()
    profiler.start()
    for n in range(requests):
        send(n)
    profiler.stop()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    event.remove(engine, "before_cursor_execute", clock.before)
    event.remove(engine, "after_cursor_execute", clock.after)
    print(f"\n===== {label}: {requests} requests =====")
    print(profiler.output_text(unicode=True, color=False, show_all=False))
    if html is not None:
        html.mkdir(parents=True, exist_ok=True)
        name = label.replace(" ", "-").replace(",", "").replace("/", "")
        (html / f"{name}.html").write_text(profiler.output_html())
    return Timing(
        label=label,
        requests=requests,
        wall_ms=1000 * wall / requests,
        cpu_ms=1000 * cpu / requests,
        sql_ms=1000 * clock.seconds / requests,
        statements=clock.statements / requests,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", help="postgresql://… (emptied first); default SQLite")
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--html", type=Path, help="a folder for pyinstrument's HTML profiles")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="santase-profile-") as temporary:
        url = arguments.database or f"sqlite:///{temporary}/counter.sqlite"
        app = fresh_app(url, {"SECRET_KEY": SECRET, "RATELIMIT_ENABLED": False})
        seeded = seed(app, arguments.requests + 40)
        timings = [
            measure(app, label, send, arguments.requests, arguments.html)
            for label, send in scenarios(app, seeded)
        ]
    # CPU time is this process's own: on a shared machine it moves less than wall time.
    print("\n| request | wall ms | CPU ms | SQL ms | statements |")
    print("|---|---:|---:|---:|---:|")
    for timing in timings:
        print(
            f"| {timing.label} | {timing.wall_ms:.2f} | {timing.cpu_ms:.2f} | {timing.sql_ms:.2f} "
            f"| {timing.statements:.1f} |"
        )


if __name__ == "__main__":
    main()
