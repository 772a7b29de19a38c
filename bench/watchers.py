"""Live pages under load: many phones watching, taps on other phones, on 2 cores.

    python -m bench.watchers        # 200 watchers, 400 taps, on SQLite and PostgreSQL
    python -m bench.watchers --watchers 20 --taps 20 --database sqlite --output /tmp/x.md

The app runs as the production recipe runs it (deploy/gunicorn.conf.py: 2 workers,
gthread) with Redis carrying each change between the workers (SANTASE_PUSH_URL). Tables of
two phones each: every table's match is watched by ``--per-table`` streams, all
held by this one process (asyncio, over loopback); taps are recorded one after
another on random tables. For each tap, the time from sending it to each watcher of
that match reading the new match is one figure: p50 and p95 are written down, with
each gunicorn worker's memory at the end, written to the "watchers" section of
bench/RESULTS.md. Nothing here asserts a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from bench import sections

ROOT = Path(__file__).resolve().parent.parent
POSTGRESQL = "postgresql://postgres@127.0.0.1:5432/benchwatchers"
REDIS = "redis://127.0.0.1:6379/0"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(database: str, port: int, folder: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "SANTASE_SECRET_KEY": secrets.token_hex(32),
        "SANTASE_DATABASE_URL": database,
        "SANTASE_TRUSTED_HOSTS": "127.0.0.1",
        "SANTASE_PUSH_URL": REDIS,
        "SANTASE_PUSH_CHANNEL": f"santase-bench:{secrets.token_hex(4)}",
        "SANTASE_RATELIMIT_ENABLED": "false",
        "SANTASE_LIVE_STREAMS_PER_ADDRESS": "100000",  # every watcher comes from this machine
        "SANTASE_AUTO_MIGRATE": "true",
        "SANTASE_BIND": f"127.0.0.1:{port}",
    }
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "counter.wsgi:app"],
        cwd=ROOT,
        env=env,
        stdout=(folder / "gunicorn.log").open("wb"),
        stderr=subprocess.STDOUT,
    )
    for _ in range(300):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit(f"gunicorn did not start: {(folder / 'gunicorn.log').read_text()}")


def worker_memory_mb(master: int) -> list[float]:
    """Resident memory of each worker of the gunicorn master ``master``."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    sizes = []
    for child in children:
        for line in Path(f"/proc/{child}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                sizes.append(int(line.split()[1]) / 1024)
    return sizes


async def call(
    port: int, method: str, path: str, body: object, cookie: str | None
) -> tuple[int, str | None, object]:
    """One request on a connection of its own: status, Set-Cookie, JSON answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    payload = json.dumps(body).encode()
    head = [
        f"{method} {path} HTTP/1.1",
        "Host: 127.0.0.1",
        "Content-Type: application/json",
        f"Content-Length: {len(payload)}",
        "Connection: close",
    ]
    if cookie:
        head.append(f"Cookie: {cookie}")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
    raw = await reader.read()
    writer.close()
    header, _, answer = raw.partition(b"\r\n\r\n")
    lines = header.decode().split("\r\n")
    status = int(lines[0].split()[1])
    cookie_line = next((line for line in lines if line.lower().startswith("set-cookie:")), None)
    new_cookie = None if cookie_line is None else cookie_line.split(":", 1)[1].split(";")[0].strip()
    return status, new_cookie, json.loads(answer) if answer else None


async def watch(
    port: int, match_id: int, cookie: str, heard: list[tuple[int, float, int]]
) -> asyncio.StreamWriter:
    """Open a stream of the match; every event it reads is noted as (match, time, deals)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        (
            f"GET /api/matches/{match_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Cookie: {cookie}\r\nAccept: text/event-stream\r\n\r\n"
        ).encode()
    )
    await writer.drain()

    async def read() -> None:
        while line := await reader.readline():
            if line.startswith(b"data: "):
                deals = json.loads(line[6:])["deals"]
                heard.append((match_id, time.perf_counter(), len(deals)))

    asyncio.get_running_loop().create_task(read())
    return writer


async def run(port: int, tables: int, per_table: int, taps: int) -> list[float]:
    matches = []
    for _ in range(tables):
        status, cookie, match = await call(port, "POST", "/api/matches", {}, None)
        if status != 201 or not cookie or not isinstance(match, dict):
            raise SystemExit(f"could not start a match: {status}")
        matches.append((match["id"], cookie))
    heard: list[tuple[int, float, int]] = []
    streams = [
        await watch(port, match_id, cookie, heard)
        for match_id, cookie in matches
        for _ in range(per_table)
    ]
    while len(heard) < len(streams):  # every stream has sent the match as it is
        await asyncio.sleep(0.05)
    counts = {match_id: 0 for match_id, _ in matches}
    delays = []
    for _ in range(taps):
        match_id, cookie = random.choice(matches)
        counts[match_id] += 1
        sent = time.perf_counter()
        body = {"player": 1, "outcome": "normal", "after": counts[match_id] - 1}
        if counts[match_id] > 10:  # a match is won at 11: undo instead, and go on
            status, _cookie, _answer = await call(
                port, "DELETE", f"/api/matches/{match_id}/deals/last", {}, cookie
            )
            counts[match_id] -= 2
        else:
            status, _cookie, _answer = await call(
                port, "POST", f"/api/matches/{match_id}/deals", body, cookie
            )
        if status not in (200, 201):
            raise SystemExit(f"a tap was answered {status}")
        want = counts[match_id]
        deadline = sent + 5
        while time.perf_counter() < deadline:
            arrived = [
                at for mid, at, deals in heard if mid == match_id and deals == want and at > sent
            ]
            if len(arrived) >= per_table:
                delays.extend(at - sent for at in arrived[:per_table])
                break
            await asyncio.sleep(0.002)
        else:
            raise SystemExit(f"a watcher of match {match_id} did not hear of tap {want} in 5 s")
        await asyncio.sleep(0.02)
    for writer in streams:
        writer.close()
    return delays


def measure(database: str, watchers: int, per_table: int, taps: int) -> str:
    """One run on ``database``: a row of the section's table."""
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.sqlite" if database == "sqlite" else database
        port = free_port()
        server = start(url, port, Path(folder))
        try:
            delays = asyncio.run(run(port, watchers // per_table, per_table, taps))
            memory = worker_memory_mb(server.pid)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)
    cuts = statistics.quantiles(delays, n=100)
    sizes = " / ".join(f"{size:.0f}" for size in memory)
    return (
        f"| {url.split(':', 1)[0]} | {watchers} | {taps} | {cuts[49] * 1000:.0f} | "
        f"{cuts[94] * 1000:.0f} | {max(delays) * 1000:.0f} | {sizes} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=200)
    parser.add_argument("--per-table", type=int, default=2)
    parser.add_argument("--taps", type=int, default=400)
    parser.add_argument(
        "--database",
        action="append",
        help=f"sqlite, or a PostgreSQL URL it may fill (default: sqlite and {POSTGRESQL})",
    )
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "RESULTS.md")
    arguments = parser.parse_args()
    rows = []
    for database in arguments.database or ["sqlite", POSTGRESQL]:
        rows.append(measure(database, arguments.watchers, arguments.per_table, arguments.taps))
        print(rows[-1])
    body = "\n".join(
        [
            "## Live pages: many phones watching",
            "",
            f"`python -m bench.watchers`, {os.cpu_count()} cores, load average",
            f"{os.getloadavg()[0]:.1f} at the end: the production recipe's gunicorn (2 workers",
            f"x 128 threads, Redis between them), {arguments.per_table} event streams a match,",
            "held by one asyncio process on the same machine; taps one after another on random",
            "matches. A figure is the time from sending a tap to one watcher of that match",
            "reading the new match. Goal: p95 at most 1 s from a tap on one phone to the score",
            "on another. Worker memory is each gunicorn worker's resident size at the end.",
            "",
            "| database | watchers | taps | p50 ms | p95 ms | max ms | worker memory MB |",
            "|---|---:|---:|---:|---:|---:|---|",
            *rows,
        ]
    )
    sections.write(arguments.output, "watchers", body)
    print(body)


if __name__ == "__main__":
    main()
