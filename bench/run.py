"""Measure the counter beside a bare Flask floor and write bench/RESULTS.md.

    python -m bench.run            # about 5 minutes: 5 s runs, 5 alternations
    python -m bench.run --quick    # under a minute: 1 s runs, 1 alternation (what CI runs)
    python -m bench.run --database postgresql://postgres@127.0.0.1:5432/h21 \
        --floor-database postgresql://postgres@127.0.0.1:5432/h21floor

Both apps run under gunicorn (2 workers), on SQLite in WAL mode in a temporary
folder, or each on its own PostgreSQL database (emptied first: give databases made
for the benchmark). wrk (Debian: apt-get install wrk) drives them over loopback,
counter and floor in turn so that machine noise hits both. Statement counts come
from the app in-process with an SQLAlchemy event hook. Nothing here asserts a
figure: the table is written down and printed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import secrets
import shutil
import signal
import socket
import sqlite3
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import redis
from flask import Flask
from sqlalchemy import create_engine, event, insert, text

from bench.sections import KEPT, found
from bench.weight import loaded, weight
from counter import create_app
from counter.game.scoring import DealResult, Outcome
from counter.storage.models import Deal, Device, Match, db

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SECRET = "benchmark-secret-key-0123456789abcdef"
POOL_SIZE = {"quick": 600, "full": 3000}  # matches per deal pool: each takes a few deals
# What the benchmark's deals send: the body (wrk's script fills in the braces) and the
# header with which the page's script asks for an acknowledgement, not the whole match
# (counter/web/api.py; since=<deals it has> is sent in the address).
DEAL_BODY = '{"player": {player}, "outcome": "normal", "request_id": "{request}"}'
MINIMAL = {"Prefer": "return=minimal"}


@dataclass(frozen=True)
class Load:
    seconds: int
    rounds: int
    connections: int = 8
    threads: int = 2


@dataclass
class Run:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int


# --- seeding ---------------------------------------------------------------------------------


def phone_cookie(app: Flask, token: str) -> str:
    """The session cookie a phone holds once it has opened the counter: its device's token
    and the CSRF secret its first page was given, for a year."""
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
    session = {"_permanent": True, "device": token, "csrf_token": secrets.token_hex(20)}
    return f"session={serializer.dumps(session)}"


def empty_database(url: str) -> None:
    """Drop every table of a PostgreSQL database made for the benchmark (SQLite: nothing)."""
    if not url.startswith("postgresql"):
        return
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.begin() as connection:
        connection.execute(text("DROP SCHEMA public CASCADE"))
        connection.execute(text("CREATE SCHEMA public"))
    engine.dispose()


def fresh_app(url: str, settings: dict[str, Any]) -> Flask:
    """The counter on an empty database (PostgreSQL's emptied first), migrated."""
    empty_database(url)
    return create_app({**settings, "SQLALCHEMY_DATABASE_URI": url})


def seed(app: Flask, pool: int) -> dict[str, Any]:
    """Browsers with 10 and 1,000 matches of 20 deals, a 15-deal match, and deal pools.

    Bulk inserts straight into the tables: 20 alternating normal wins leave each
    history match 10:10 to 15, unfinished. The 100-deal matches hold 100 zero-point
    deals (only a tied-deal house rule could make such a match; here it stands for
    any long match) so that new deals can still go in.

    Each browser is a phone that has opened the counter before: a device showing its
    match played last, and the cookie such a phone sends (``cookies``). A deal pool is
    many tables, each with its own phone and key showing its match (``pool cookies``,
    in the order of the pool's matches): a phone records into the match on its screen,
    and one table's deals do not count another table's games.
    """
    start = datetime.now(UTC).replace(tzinfo=None) - timedelta(days=400)
    next_id = 1
    matches: list[dict[str, Any]] = []
    deals: list[dict[str, Any]] = []

    def add(
        owner: str,
        count: int,
        deals_each: int,
        target: int = 15,
        points: int = 1,
        tables: bool = False,
    ) -> list[int]:
        """``count`` matches of ``owner`` (with ``tables``, each of a key of its own:
        ``owner-<id>``)."""
        nonlocal next_id
        ids = []
        # Player 1, then 2, then 1 …, each a normal win worth ``points``.
        results = [
            DealResult(1 + (n + 1) % 2, Outcome.NORMAL, points) for n in range(1, deals_each + 1)
        ]
        for _ in range(count):
            moment = start + timedelta(minutes=next_id)
            matches.append(
                {
                    "id": next_id,
                    "owner": f"{owner}-{next_id}" if tables else owner,
                    "player1": "Иван",
                    "player2": "Мария",
                    "target": target,
                    "created_at": moment,
                    "played_at": moment,
                    "won_by": None,
                }
            )
            deals.extend(
                {
                    "match_id": next_id,
                    "number": number,
                    "player": result.player,
                    "outcome": result.outcome.value,
                    "points": result.points,
                    "request_id": None,
                    "created_at": moment,
                }
                for number, result in enumerate(results, 1)
            )
            ids.append(next_id)
            next_id += 1
        return ids

    devices: list[dict[str, Any]] = []

    def phone(owner: str, match_id: int) -> str:
        """A device of ``owner`` showing ``match_id``; its cookie."""
        token = secrets.token_hex(16)
        devices.append(
            {"id": len(devices) + 1, "token": token, "owner": owner, "match_id": match_id}
        )
        return phone_cookie(app, token)

    pools = {
        "10": add("bench-10", 10, 20),
        "1000": add("bench-1000", 1000, 20),
        "main": add("bench-main", 1, 15, target=11),
        "deal": add("bench-deal", pool, 1, tables=True),
        "one": add("bench-one", pool, 1, tables=True),
        "hundred": add("bench-hundred", pool, 100, points=0, tables=True),
    }
    cookies = {name: phone(f"bench-{name}", pools[name][-1]) for name in ("10", "1000", "main")}
    pool_cookies = {
        name: [phone(f"bench-{name}-{match_id}", match_id) for match_id in pools[name]]
        for name in ("deal", "one", "hundred")
    }
    with app.app_context():
        db.session.execute(insert(Match), matches)
        db.session.execute(insert(Deal), deals)
        db.session.execute(insert(Device), devices)
        if db.engine.dialect.name == "postgresql":  # ids were given: move the sequences past
            for table in ("match", "device"):
                db.session.execute(
                    text(f"SELECT setval('{table}_id_seq', (SELECT max(id) FROM {table}))")
                )
        db.session.commit()
        if db.engine.dialect.name == "postgresql":
            # As a database that has been running for a while has them: its tables'
            # statistics and visibility maps, which autovacuum would otherwise make for
            # the 330,000 new rows at a moment of its own, in the middle of a run.
            with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as bare:
                bare.execute(text("VACUUM ANALYZE"))
        db.engine.dispose()
    return {
        "cookies": cookies,
        "pool cookies": pool_cookies,
        "main": pools["main"][0],
        "deal": pools["deal"],
        "one": pools["one"],
        "hundred": pools["hundred"],
    }


# --- servers ---------------------------------------------------------------------------------


PORTS = range(5380, 5400)  # the ports this benchmark may listen on
_ports_given: set[int] = set()


def free_port() -> int:
    """A port of :data:`PORTS` free now and not handed out before in this run."""
    for port in PORTS:
        if port in _ports_given:
            continue
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        _ports_given.add(port)
        return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1}")


def wait_for(url: str, process: subprocess.Popen[bytes], what: str, log: Path) -> None:
    deadline = time.monotonic() + 30
    context = ssl._create_unverified_context()  # Caddy's own certificate authority
    while True:
        try:
            urllib.request.urlopen(url, timeout=1, context=context)
            return
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                # The log's folder goes with the run: say its end here, where CI shows it.
                said = log.read_text(errors="replace")[-3000:] if log.exists() else ""
                raise RuntimeError(f"{what} did not start; its log ended:\n{said}") from None
            time.sleep(0.1)


@contextmanager
def started(
    command: list[str], env: dict[str, str], log: Path, ready: str, what: str
) -> Iterator[int]:
    """A process in a group of its own, once ``ready`` answers; stopped on the way out."""
    with log.open("ab") as output:
        process = subprocess.Popen(
            command,
            env={**os.environ, **env},
            cwd=ROOT,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )
    try:
        wait_for(ready, process, what, log)
        yield process.pid
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            # deploy/gunicorn.conf.py lets workers finish for 20 s (graceful_timeout)
            process.wait(timeout=25)
        except subprocess.TimeoutExpired:  # the runs are over: nothing left to finish
            with suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@contextmanager
def gunicorn(
    app: str, env: dict[str, str], folder: Path, *, recipe: bool = False
) -> Iterator[tuple[str, int]]:
    """The app under gunicorn: 2 sync workers, or with ``recipe`` deploy/gunicorn.conf.py."""
    port = free_port()
    options = ["-c", "deploy/gunicorn.conf.py"] if recipe else ["--workers", "2"]
    env = {**env, "SANTASE_BIND": f"127.0.0.1:{port}"} if recipe else env
    command = [sys.executable, "-m", "gunicorn", *options, "--bind", f"127.0.0.1:{port}", app]
    base = f"http://127.0.0.1:{port}"
    ready = base + ("/health" if "counter" in app else "/ping")
    with started(command, env, folder / f"{port}.log", ready, app) as pid:
        yield base, pid


@contextmanager
def caddy(upstream: str, ready_path: str, folder: Path) -> Iterator[str]:
    """deploy/Caddyfile in front of ``upstream`` (its own certificate authority, at
    127.0.0.1), started as tests/deploy/test_deploy.py starts it; yields the HTTPS
    address."""
    https_port, http_port, admin_port = free_port(), free_port(), free_port()
    home = folder / f"caddy-{https_port}"
    env = {
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "SANTASE_HOST": "127.0.0.1",
        "SANTASE_TLS": "internal",
        "SANTASE_LISTEN": "127.0.0.1",
        "SANTASE_HTTPS_PORT": str(https_port),
        "SANTASE_HTTP_PORT": str(http_port),
        "SANTASE_ADMIN": f"127.0.0.1:{admin_port}",
        "SANTASE_UPSTREAM": upstream.removeprefix("http://"),
    }
    base = f"https://127.0.0.1:{https_port}"
    command = ["caddy", "run", "--config", "deploy/Caddyfile", "--adapter", "caddyfile"]
    with started(command, env, folder / f"caddy-{https_port}.log", base + ready_path, "caddy"):
        yield base


def peak_worker_memory_mb(master: int) -> float:
    """The largest peak resident set (VmHWM) among the master's worker processes."""
    peaks = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:
            continue
        ppid = re.search(r"^PPid:\s+(\d+)", text, re.M)
        peak = re.search(r"^VmHWM:\s+(\d+) kB", text, re.M)
        if ppid and peak and int(ppid.group(1)) == master:
            peaks.append(int(peak.group(1)) / 1024)
    return max(peaks) if peaks else float("nan")


# --- load --------------------------------------------------------------------------------------

# Each request goes to the next match of the pool, for alternating players, with a
# request id no other request of any run shares, from the phone showing that match
# (its cookie), if the pool has phones.
POST_SCRIPT = """
local ids = {%(ids)s}
local cookies = {%(cookies)s}
local template = %(body)s
local next_thread = 0
function setup(thread)
  thread:set("thread_id", next_thread)
  next_thread = next_thread + 1
end
counter = 0
function request()
  counter = counter + 1
  local tid = thread_id or 0
  local index = ((counter * %(threads)d + tid) %% #ids) + 1
  local match = ids[index]
  if #cookies > 0 then wrk.headers["Cookie"] = cookies[index] end
  local body = template:gsub("{match}", match):gsub("{player}", 1 + counter %% 2)
  body = body:gsub("{request}", "%(run)s-" .. tid .. "-" .. counter)
  return wrk.format("POST", string.format(%(path)s, match), nil, body)
end
wrk.headers["Content-Type"] = "application/json"
"""


def wrk(
    base: str,
    path: str,
    load: Load,
    folder: Path,
    cookie: str | None = None,
    post: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> Run:
    command = [
        "wrk",
        f"-t{load.threads}",
        f"-c{load.connections}",
        f"-d{load.seconds}s",
        "--latency",
        "-H",
        "Accept-Language: bg",
    ]
    if cookie:
        command += ["-H", f"Cookie: {cookie}"]
    for name, value in (headers or {}).items():
        command += ["-H", f"{name}: {value}"]
    if post:
        run = uuid.uuid4().hex[:12]
        script = folder / f"post-{run}.lua"
        script.write_text(
            POST_SCRIPT
            % {
                "ids": ",".join(map(str, post["ids"])),
                "cookies": ",".join(json.dumps(cookie) for cookie in post.get("cookies", [])),
                "threads": load.threads,
                "body": json.dumps(post["body"]),
                "path": json.dumps(path),
                "run": run,
            }
        )
        command += ["-s", str(script)]
        path = "/"
    for _attempt in range(2):  # once more if wrk itself fails (a shared machine's hiccup)
        finished = subprocess.run([*command, base + path], capture_output=True, text=True)
        if finished.returncode == 0:
            return parse_wrk(finished.stdout)
    # The log's folder goes with the run: say the server's last words here, where CI shows them.
    log = folder / f"{base.rsplit(':', 1)[1]}.log"
    said = log.read_text(errors="replace")[-3000:] if log.exists() else "(no log)"
    failed = finished.stderr or finished.stdout
    raise RuntimeError(f"wrk {base + path} failed: {failed}\nThe server's log ended:\n{said}")


def parse_wrk(output: str) -> Run:
    def milliseconds(label: str) -> float:
        found = re.search(rf"^\s+{label}\s+([\d.]+)(us|ms|s)\s*$", output, re.M)
        if not found:
            raise ValueError(f"no {label} latency in wrk output:\n{output}")
        value, unit = float(found.group(1)), found.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    socket_errors = re.search(r"Socket errors: .*", output)
    if not rate:
        raise ValueError(f"no throughput in wrk output:\n{output}")
    total = re.search(r"(\d+) requests in", output)
    # A run whose requests are refused measures the refusal: the benchmark is broken.
    if errors and total and int(errors.group(1)) * 100 > int(total.group(1)):
        raise ValueError(f"{errors.group(1)} of {total.group(1)} requests failed:\n{output}")
    return Run(
        requests_per_second=float(rate.group(1)),
        p50_ms=milliseconds("50%"),
        p99_ms=milliseconds("99%"),
        errors=int(errors.group(1)) if errors else (1 if socket_errors else 0),
    )


def median_run(runs: list[Run]) -> Run:
    return Run(
        requests_per_second=statistics.median(r.requests_per_second for r in runs),
        p50_ms=statistics.median(r.p50_ms for r in runs),
        p99_ms=statistics.median(r.p99_ms for r in runs),
        errors=sum(r.errors for r in runs),
    )


# --- statements per request ----------------------------------------------------------------------


def count_statements(app: Flask, seeded: dict[str, Any]) -> list[tuple[str, int, int]]:
    """SQL statements sent for one request to each endpoint, at 10 and at 1,000 matches."""
    statements: list[str] = []

    def spy(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        statements.append(statement)

    with app.app_context():
        engine = db.engine
    event.listen(engine, "before_cursor_execute", spy)
    rows = []
    requests = [
        ("GET /", "GET", "/", None),
        ("GET /matches", "GET", "/matches", None),
        ("GET /api/matches", "GET", "/api/matches", None),
        ("GET /api/matches/current", "GET", "/api/matches/current", None),
        (
            "POST /api/matches/<id>/deals",
            "POST",
            "/api/matches/{id}/deals",
            {"player": 1, "outcome": "normal", "request_id": "count-1"},
        ),
        ("DELETE /api/matches/<id>/deals/last", "DELETE", "/api/matches/{id}/deals/last", None),
    ]
    clients = {}
    for size in ("10", "1000"):
        client = app.test_client()
        client.set_cookie("session", seeded["cookies"][size].removeprefix("session="))
        current = client.get("/api/matches/current").get_json()["id"]
        clients[size] = (client, current)
    for label, method, path, body in requests:
        counts = []
        for size in ("10", "1000"):
            client, current = clients[size]
            statements.clear()
            response = client.open(path.format(id=current), method=method, json=body)
            if response.status_code >= 400:
                raise RuntimeError(f"{label} answered {response.status_code}")
            counts.append(len(statements))
        rows.append((label, counts[0], counts[1]))
    event.remove(engine, "before_cursor_execute", spy)
    with app.app_context():
        db.engine.dispose()
    return rows


# --- page weight ---------------------------------------------------------------------------------


def page_weight(base: str, cookie: str) -> tuple[int, int]:
    def get(path: str) -> bytes:
        request = urllib.request.Request(base + path, headers={"Cookie": cookie})
        with urllib.request.urlopen(request) as response:
            return bytes(response.read())

    return weight(loaded(get))


# --- the report ----------------------------------------------------------------------------------


def machine() -> str:
    return (
        f"{os.cpu_count()} cores, Python {platform.python_version()}, "
        f"SQLite {sqlite3.sqlite_version}, {platform.system()} {platform.machine()}"
    )


def row(label: str, run: Run) -> str:
    flag = f" ({run.errors} errors)" if run.errors else ""
    return (
        f"| {label} | {run.requests_per_second:,.0f}{flag} | {run.p50_ms:.2f} | {run.p99_ms:.2f} |"
    )


# A comparison: its title, each side's label and its runs (one an alternation), the goal.
Pair = tuple[str, str, list[Run], str, list[Run], str]


def paired_ratio(left: list[Run], right: list[Run]) -> float:
    """The median of each alternation's own ratio: the two sides of a comparison run one
    after the other in every alternation, so what the machine's other work does to both
    then cancels out, as it would not between the two sides' medians (from other minutes).
    An alternation whose second side answered nothing in its window (a one-second run of
    --quick on a busy machine) is left out; with none left, the ratio is NaN."""
    ratios = [
        one.requests_per_second / other.requests_per_second
        for one, other in zip(left, right, strict=True)
        if other.requests_per_second
    ]
    return statistics.median(ratios) if ratios else math.nan


def table(pairs: list[Pair]) -> list[str]:
    lines = ["| comparison | requests/s | p50 ms | p99 ms |", "|---|---:|---:|---:|"]
    for title, left_label, left, right_label, right, goal in pairs:
        lines += [
            f"| **{title}** | | | |",
            row(left_label, median_run(left)),
            row(right_label, median_run(right)),
            f"| ratio {goal} | **{paired_ratio(left, right):.2f}** | | |",
        ]
    return lines


def database_section(
    name: str,
    pairs: list[Pair],
    statements: list[tuple[str, int, int]],
    memory: float,
    weight: tuple[int, int],
) -> str:
    lines = [
        f"## {name}",
        "",
        *table(pairs),
        "",
        "SQL statements per request (SQLAlchemy `before_cursor_execute`; SQLite's `BEGIN`",
        "counts too; deals with the full answer, as a client that asks nothing else gets):",
        "",
        "| request | 10 matches | 1,000 matches |",
        "|---|---:|---:|",
        *(f"| `{label}` | {small} | {large} |" for label, small, large in statements),
        "",
        f"Peak resident memory of a counter worker (VmHWM) after the runs: **{memory:.1f} MB**.",
        "",
        f"Main page with everything it loads (HTML, CSS, scripts and the modules they import, "
        f"icons, manifest), a 15-deal match: "
        f"**{weight[0]:,} bytes**, **{weight[1]:,} bytes** gzipped.",
    ]
    return "\n".join(lines) + "\n"


def report(sections: list[str], load: Load, mode: str) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {machine()}.",
        f"Mode `{mode}`: wrk {load.threads} threads, {load.connections} connections, "
        f"{load.seconds} s per run, {load.rounds} alternation(s) of counter and floor; "
        "medians of the alternations, and each ratio the median of the alternations' own "
        "ratios (the two sides of a comparison run one after the other). Both apps under "
        "gunicorn with 2 workers, each on a database of its own: SQLite (WAL, "
        "`synchronous=FULL`) in a temporary folder, then PostgreSQL. The counter's deals "
        "ask for the API's short answer (`Prefer: return=minimal`); one row shows the full "
        "answer, which the page's script takes, for comparison.",
        "",
    ]
    return "\n".join(lines) + "\n" + "\n".join(sections)


def deal_post(seeded: dict[str, Any], pool: str) -> dict[str, Any]:
    """Deals into the pool's matches, each from the phone showing it."""
    return {"ids": seeded[pool], "body": DEAL_BODY, "cookies": seeded["pool cookies"][pool]}


FLOOR_DEAL = '{"match": {match}, "player": {player}, "points": 1}'


def against_the_floor(
    counter: str, floor: str, seeded: dict[str, Any], load: Load, folder: Path
) -> list[tuple[str, Callable[[], Run]]]:
    """A deal beside the floor's insert, the main page beside ``/ping``."""
    cookies = seeded["cookies"]
    deals = "/api/matches/%d/deals"
    floor_post = {"ids": seeded["deal"], "body": FLOOR_DEAL}
    return [
        (
            "deal",
            lambda: wrk(counter, deals, load, folder, None, deal_post(seeded, "deal"), MINIMAL),
        ),
        ("floor deal", lambda: wrk(floor, "/deal", load, folder, None, floor_post)),
        ("main page", lambda: wrk(counter, "/", load, folder, cookies["main"])),
        ("ping", lambda: wrk(floor, "/ping", load, folder)),
    ]


def floor_pairs(result: dict[str, list[Run]]) -> list[Pair]:
    return [
        (
            "Recording a deal",
            "counter `POST /api/matches/<id>/deals`, short answer",
            result["deal"],
            "floor `POST /deal`",
            result["floor deal"],
            "(a deal stays within 3x the floor: ≥ 0.33)",
        ),
        (
            "Main page",
            "counter `GET /` (15 deals)",
            result["main page"],
            "floor `GET /ping`",
            result["ping"],
            "(information)",
        ),
    ]


def measure_database(
    name: str, counter_url: str, floor_url: str, mode: str, load: Load, folder: Path
) -> str:
    """Every comparison on one kind of database: the counter and the floor each on its own."""
    settings = {"SECRET_KEY": SECRET, "RATELIMIT_ENABLED": False}
    app = fresh_app(counter_url, settings)
    seeded = seed(app, POOL_SIZE[mode])
    statements = count_statements(app, seeded)
    cookies = seeded["cookies"]
    empty_database(floor_url)
    # wrk on one address sends thousands of writes a second: the rate limits are off.
    counter_env = {
        "SANTASE_SECRET_KEY": SECRET,
        "SANTASE_DATABASE_URL": counter_url,
        "SANTASE_TRUSTED_HOSTS": "127.0.0.1",
        "SANTASE_RATELIMIT_ENABLED": "false",
    }
    floor_env = {"FLOOR_DATABASE_URL": floor_url}
    runs: dict[str, list[Run]] = {}
    with (
        gunicorn("counter.wsgi:app", counter_env, folder) as (counter, master),
        gunicorn("bench.floor:create_app()", floor_env, folder) as (floor, _floor_pid),
    ):

        def deal_into(pool: str, headers: dict[str, str]) -> Callable[[], Run]:
            return lambda: wrk(
                counter,
                "/api/matches/%d/deals",
                load,
                folder,
                None,
                deal_post(seeded, pool),
                headers,
            )

        scenarios = [
            *against_the_floor(counter, floor, seeded, load, folder),
            ("history 10", lambda: wrk(counter, "/matches", load, folder, cookies["10"])),
            ("history 1000", lambda: wrk(counter, "/matches", load, folder, cookies["1000"])),
            ("api 10", lambda: wrk(counter, "/api/matches", load, folder, cookies["10"])),
            ("api 1000", lambda: wrk(counter, "/api/matches", load, folder, cookies["1000"])),
            ("deal into 1", deal_into("one", MINIMAL)),
            ("deal into 100", deal_into("hundred", MINIMAL)),
            ("deal into 100 full", deal_into("hundred", {})),
        ]
        for _round in range(load.rounds):
            for label, scenario in scenarios:
                runs.setdefault(label, []).append(scenario())
        memory = peak_worker_memory_mb(master)
        weight = page_weight(counter, cookies["main"])
    result = runs
    pairs: list[Pair] = [
        *floor_pairs(result),
        (
            "History page",
            "`GET /matches`, 1,000 matches",
            result["history 1000"],
            "`GET /matches`, 10 matches",
            result["history 10"],
            "1,000 / 10 (information)",
        ),
        (
            "API list",
            "`GET /api/matches`, 1,000 matches",
            result["api 1000"],
            "`GET /api/matches`, 10 matches",
            result["api 10"],
            "1,000 / 10 (information)",
        ),
        (
            "Recording into a long match",
            "into a 100-deal match, short answer",
            result["deal into 100"],
            "into a 1-deal match, short answer",
            result["deal into 1"],
            "100 / 1 (information)",
        ),
        (
            "The short answer against the full one",
            "into a 100-deal match, full answer",
            result["deal into 100 full"],
            "into a 100-deal match, short answer",
            result["deal into 100"],
            "full / short (information)",
        ),
    ]
    return database_section(name, pairs, statements, memory, weight)


REDIS = "redis://127.0.0.1:6379/3"  # a database number of the benchmark's own


@contextmanager
def forgotten_in_redis(prefix: str) -> Iterator[None]:
    """Delete the rate limits' keys under ``prefix`` afterwards (and nothing else)."""
    try:
        yield
    finally:
        store = redis.Redis.from_url(REDIS)
        for key in list(store.scan_iter(match=f"*{prefix}*")):
            store.delete(key)
        store.close()


def measure_recipe(counter_url: str, floor_url: str, load: Load, folder: Path) -> str:
    """The production recipe: deploy/Caddyfile in front of deploy/gunicorn.conf.py, on
    PostgreSQL with the rate limits in Redis, beside the floor behind the same recipe."""
    app = fresh_app(counter_url, {"SECRET_KEY": SECRET, "RATELIMIT_ENABLED": False})
    seeded = seed(app, POOL_SIZE["quick"] if load.seconds == 1 else POOL_SIZE["full"])
    empty_database(floor_url)
    prefix = f"santase-bench-{uuid.uuid4().hex[:8]}"
    counter_env = {
        "SANTASE_SECRET_KEY": SECRET,
        "SANTASE_DATABASE_URL": counter_url,
        "SANTASE_TRUSTED_HOSTS": "127.0.0.1",
        "SANTASE_TRUSTED_PROXIES": "1",
        # The limits count in Redis, as in production, but high enough for wrk's one address.
        "SANTASE_RATELIMIT_STORAGE_URI": REDIS,
        "SANTASE_RATELIMIT_KEY_PREFIX": prefix,
        "SANTASE_RATELIMIT_WRITES_PER_BROWSER": "10000000 per minute",
        "SANTASE_RATELIMIT_WRITES_PER_ADDRESS": "10000000 per minute",
    }
    runs: dict[str, list[Run]] = {}
    with (
        forgotten_in_redis(prefix),
        gunicorn("counter.wsgi:app", counter_env, folder, recipe=True) as (app_base, _pid),
        gunicorn(
            "bench.floor:create_app()", {"FLOOR_DATABASE_URL": floor_url}, folder, recipe=True
        ) as (floor_base, _floor_pid),
        caddy(app_base, "/health", folder) as counter,
        caddy(floor_base, "/ping", folder) as floor,
    ):
        scenarios = against_the_floor(counter, floor, seeded, load, folder)
        for _round in range(load.rounds):
            for label, scenario in scenarios:
                runs.setdefault(label, []).append(scenario())
    pairs = floor_pairs(runs)
    return (
        "\n".join(
            [
                "## The production recipe: Caddy, gunicorn (2 x 128 threads), PostgreSQL, Redis",
                "",
                "deploy/Caddyfile (HTTPS with Caddy's own authority, compression) in front of "
                "deploy/gunicorn.conf.py for each app, counter and floor on their own PostgreSQL "
                "databases; the counter's rate limits count in Redis.",
                "",
                *table(pairs),
            ]
        )
        + "\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 s runs, 1 alternation")
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument(
        "--database", help="also on PostgreSQL: postgresql://… (emptied first: one made for this)"
    )
    parser.add_argument(
        "--floor-database", help="the floor's PostgreSQL database; default: --database's + floor"
    )
    parser.add_argument(
        "--recipe",
        action="store_true",
        help="also through deploy/ (Caddy, gunicorn.conf.py) on the PostgreSQL databases",
    )
    arguments = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: apt-get install wrk")
    if arguments.recipe and (not arguments.database or shutil.which("caddy") is None):
        sys.exit("--recipe needs --database and caddy")
    mode = "quick" if arguments.quick else "full"
    load = Load(seconds=1, rounds=1) if arguments.quick else Load(seconds=5, rounds=5)

    with tempfile.TemporaryDirectory(prefix="santase-bench-") as temporary:
        folder = Path(temporary)
        sections = [
            measure_database(
                "SQLite",
                f"sqlite:///{folder}/counter.sqlite",
                f"sqlite:///{folder}/floor.sqlite",
                mode,
                load,
                folder,
            )
        ]
        if arguments.database:
            floor_url = arguments.floor_database or arguments.database + "floor"
            sections.append(
                measure_database("PostgreSQL", arguments.database, floor_url, mode, load, folder)
            )
            if arguments.recipe:
                sections.append(measure_recipe(arguments.database, floor_url, load, folder))

    text = report(sections, load, mode)
    earlier = arguments.output.read_text() if arguments.output.exists() else ""
    for name in KEPT:  # what the other benchmarks wrote there stays
        if (kept := found(earlier, name)) is not None:
            text = text.rstrip("\n") + "\n\n" + kept + "\n"
    arguments.output.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
