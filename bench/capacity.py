"""How many live phones the production recipe holds on this machine, deals flowing.

    python -m bench.capacity            # 500 ... 9,900 phones, 60 s a step: 8 to 10 minutes
    python -m bench.capacity --quick    # 500 and 1,000 phones, 15 s a step: under 2 minutes
    python -m bench.capacity --steps 200,400 --window 10 --output /tmp/capacity.md

It starts the recipe of deploy/README.md ("The same processes by hand") on free ports of
127.0.0.1: a PostgreSQL database of its own, Redis (database 3), gunicorn for the app
(2 workers x 128 threads), gunicorn for the streams service (``SANTASE_ROLE=streams``,
2 gevent workers) and Caddy in front (HTTPS with its own authority, ``SANTASE_TLS=internal``).
Everything it starts is stopped at the end, whatever happens.

Live phones are added in steps. Each table is a match of a browser of its own (its cookie
from ``POST /api/matches``) shown by two phones, each an event stream over HTTPS through
Caddy from a source address of 127.0.1.1, 127.0.1.2, ... (30 tables, 60 streams, an
address: a club evening behind one router, within the app's bound of 120 an address,
``SANTASE_LIVE_STREAMS_PER_ADDRESS``, per process). The streams are held
by a few asyncio client processes that behave as the page does (reconnect a second after
a stream ends, open it afresh after two silent heartbeats); each phone closes its first
stream after a random part of the stream's 5 minutes and reopens it, so that the ends of
the streams, and their reconnections, spread over the 5 minutes as those of phones that
came at any time, instead of all those of a step coming at once.

At each step, for a window, deals come at a real table's pace, one per table every two
minutes on average (a Poisson process over random tables): each deal's answer time, and
the time from sending it to each of its table's two phones reading the new match (the
push). The limit is the most phones held with deal p99 at most 100 ms, push p95 at most
1 s and no error; the ramp stops at the first step that breaks it, or at the open-files
limit: Caddy holds two files a stream (the phone's and the app's), so a hard limit of
20,000 files a process allows about 9,900 phones.

Then the floor: a bare asyncio event-stream fan-out server (:func:`serve_floor`, no Flask,
no Caddy, no database, no TLS) holds as many streams as the top step, a deal being a POST
that writes one event to its table's two streams; the same push figures, and the ratio.

The figures go to the "capacity" section of bench/RESULTS.md (bench/sections.py). Nothing
here asserts a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import platform
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path
from types import FrameType

import psycopg

from bench import recipe as shared
from bench import sections

# The phones, once of this module: their names are still found here.
from bench.live_phones import *  # noqa: F403
from bench.live_phones import (
    GROW_TIMEOUT_S,
    OPENING,
    PHONES_PER_TABLE,
    PUSH_TIMEOUT_S,
    TIMEOUT_S,
    Client,
    Command,
    Grow,
    Measure,
    Stop,
    Tally,
    Target,
    client_main,
    percentile,
    serve_floor,
)
from bench.recipe import POSTGRES, free_ports, running, wait_until
from bench.recipe import answers as answers  # a name of this module before bench/recipe.py

ROOT = Path(__file__).resolve().parent.parent
REDIS = "redis://127.0.0.1:6379/3"  # database 3: never the 0 that a developer's Redis uses
POSTGRESQL = "PostgreSQL (the database's connections)"

STEPS = (500, 1_000, 2_500, 5_000, 7_500)  # then the files limit's ceiling
QUICK_STEPS = (500, 1_000)
WINDOW_S = 60.0
QUICK_WINDOW_S = 15.0
CLIENTS = 4  # asyncio processes holding the phones
DEAL_EVERY_S = 120.0  # a table's pace: one deal every two minutes on average
DEAL_P99_GOAL_MS = 100.0
PUSH_P95_GOAL_MS = 1000.0

# Files: Caddy holds two a stream; what it needs besides (listeners, logs, the app's
# connections, deals in flight) is kept out of the ceiling.
CADDY_SPARE_FILES = 200
STREAMS_PER_ADDRESS = 120  # SANTASE_LIVE_STREAMS_PER_ADDRESS as shipped, per process
TABLES_PER_ADDRESS = 30  # a club evening's tables behind one router: 60 streams


# --- the recipe's processes (bench/recipe.py starts them) --------------------------------------


@dataclass
class Recipe:
    """The recipe as the benchmark runs it: one app server, its processes by name."""

    caddy: subprocess.Popen[bytes]
    app: subprocess.Popen[bytes]
    streams: subprocess.Popen[bytes]
    https_port: int
    root_certificate: Path
    database: str

    def processes(self) -> Named:
        """Its processes, and PostgreSQL's for its database."""
        found = {self.caddy.pid: "Caddy"}
        for master, kind in ((self.app.pid, "app"), (self.streams.pid, "streams")):
            found[master] = f"{kind} master"
            for number, pid in enumerate(children(master), 1):
                found[pid] = f"{kind} worker {number}"
        name = self.database.rsplit("/", 1)[1]
        with psycopg.connect(POSTGRES, connect_timeout=5) as admin:
            rows = admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s", (name,)
            ).fetchall()
        return found | {int(pid): POSTGRESQL for (pid,) in rows}


@contextmanager
def recipe(folder: Path) -> Iterator[Recipe]:
    """The processes of deploy/README.md's "The same processes by hand", rate limits off."""
    with shared.recipe(
        folder,
        redis_url=REDIS,
        kind="capacity",
        settings={"SANTASE_RATELIMIT_ENABLED": "false"},
        streams={"SANTASE_WORKERS": "2"},
        stop_s=30,  # thousands of streams end first
    ) as site:
        yield Recipe(
            site.caddy,
            site.apps[0],
            site.streams[0],
            site.https_port,
            site.root_certificate,
            site.database,
        )


# --- the orchestrator ---------------------------------------------------------------------------


def resident_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def children(pid: int) -> list[int]:
    return [int(each) for each in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float | None:
    """CPU seconds the process ``pid`` has used, if it is still there."""
    try:
        rest = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(rest[11]) + int(rest[12])) / TICK  # utime, stime


def machine_cpu() -> float:
    """CPU seconds all of the machine's cores have spent in processes (interrupts left out:
    the kernel counts those to no process)."""
    user, nice, system = (
        int(each) for each in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:4]
    )
    return (user + nice + system) / TICK


@dataclass(frozen=True)
class Cpu:
    """Cores busy over a stretch of time: the benchmark's processes (in all, and by name),
    and all the others."""

    ours: float
    others: float
    by: dict[str, float]


Named = dict[int, str]  # pid: what the process is


@contextmanager
def cpu_watch(processes: Callable[[], Named]) -> Iterator[list[Cpu]]:
    """What ``processes`` (the benchmark's) used of the CPU meanwhile, and what the rest of
    the machine used: found in the list it gives once the block ends."""
    began, machine = time.monotonic(), machine_cpu()
    named = processes()
    before = {pid: cpu_of(pid) for pid in named}
    found: list[Cpu] = []
    yield found
    seconds = time.monotonic() - began
    busy = machine_cpu() - machine
    named = {**named, **processes()}
    by: dict[str, float] = {}
    for pid, name in named.items():
        now, then = cpu_of(pid), before.get(pid, 0.0)
        if now is not None and then is not None:
            by[name] = by.get(name, 0.0) + (now - then) / seconds
    ours = sum(by.values())
    found.append(Cpu(ours, max(0.0, busy / seconds - ours), by))


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def address(table: int) -> str:
    """The source address of a table's phones: TABLES_PER_ADDRESS tables an address."""
    block = table // TABLES_PER_ADDRESS
    return f"127.0.{1 + block // 250}.{1 + block % 250}"


class Clients:
    """The client processes, driven together; stopped (by their ids) on the way out."""

    def __init__(self, target: Target, count: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.lines: list[Connection] = []
        self.processes: list[multiprocessing.process.BaseProcess] = []
        for _ in range(count):
            ours, theirs = context.Pipe()
            process = context.Process(target=client_main, args=(theirs, target), daemon=True)
            process.start()
            theirs.close()
            self.lines.append(ours)
            self.processes.append(process)
        self.tables = 0

    def ask(self, commands: list[Command], seconds: float) -> list[Tally]:
        for line, command in zip(self.lines, commands, strict=True):
            line.send(command)
        found = []
        for number, line in enumerate(self.lines):
            if not line.poll(seconds):
                raise SystemExit(f"client {number} did not answer in {seconds:.0f} s")
            found.append(line.recv())
        return found

    def grow(self, phones: int) -> Tally:
        tables = phones // PHONES_PER_TABLE
        shares: list[list[tuple[int, str]]] = [[] for _ in self.lines]
        for table in range(self.tables, tables):
            shares[table % len(self.lines)].append((table, address(table)))
        self.tables = tables
        total = Tally()
        for tally in self.ask([Grow(share) for share in shares], GROW_TIMEOUT_S + 60):
            total.add(tally)
        return total

    def measure(self, seconds: float, every: float) -> Tally:
        total = Tally()
        commands: list[Command] = [
            Measure(seconds, random.randrange(2**32), every) for _ in self.lines
        ]
        for tally in self.ask(commands, seconds + 3 * TIMEOUT_S + PUSH_TIMEOUT_S + 60):
            total.add(tally)
        return total

    def named(self) -> Named:
        return {
            each.pid: f"client {number}"
            for number, each in enumerate(self.processes, 1)
            if each.pid is not None
        }

    def memory(self) -> list[float]:
        return [resident_mb(pid) for pid in self.named()]

    def stop(self) -> None:
        for line in self.lines:
            with suppress(OSError, ValueError):
                line.send(Stop())
        for process in self.processes:
            process.join(timeout=15)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)


@contextmanager
def clients(target: Target, count: int) -> Iterator[Clients]:
    started = Clients(target, count)
    try:
        yield started
    finally:
        started.stop()


@dataclass
class Step:
    phones: int
    grown: Tally
    window: Tally
    grow_s: float
    caddy_files: int
    memory: dict[str, float]
    load: float
    cpu: Cpu

    @property
    def failed(self) -> int:
        return self.window.failed

    @property
    def refused(self) -> int:
        return self.window.refused

    @property
    def errors(self) -> int:
        return self.window.deal_errors + self.window.missed

    def broken(self) -> list[str]:
        """What of the goals this step misses."""
        why = []
        if (p99 := percentile(self.window.deal_s, 99) * 1000) > DEAL_P99_GOAL_MS:
            why.append(f"deal p99 {p99:,.0f} ms > {DEAL_P99_GOAL_MS:,.0f} ms")
        if (p95 := percentile(self.window.push_s, 95) * 1000) > PUSH_P95_GOAL_MS:
            why.append(f"push p95 {p95:,.0f} ms > {PUSH_P95_GOAL_MS:,.0f} ms")
        if self.failed or self.refused:
            why.append(f"{self.failed:,} streams failed and {self.refused:,} refused in the window")
        if self.errors:
            why.append(f"{self.errors:,} errors")
        if self.grown.live < self.phones:
            why.append(f"{self.grown.live:,} of {self.phones:,} phones open after opening")
        if self.window.live < self.phones:
            why.append(f"{self.window.live:,} of {self.phones:,} phones live at the end")
        reasons = self.window.reasons.copy()
        if self.grown.live < self.phones:
            reasons += self.grown.reasons
        if why and reasons:
            why.append(
                "(" + "; ".join(f"{n:,} x {reason}" for reason, n in reasons.most_common(4)) + ")"
            )
        return why


def memory_of(site: Recipe, fleet: Clients) -> dict[str, float]:
    """Resident MB of each process (PostgreSQL's left out: most of theirs is shared)."""
    named = site.processes() | fleet.named()
    return {name: resident_mb(pid) for pid, name in named.items() if name != POSTGRESQL}


def ramp(
    site: Recipe,
    steps: Sequence[int],
    window: float,
    every: float,
    count: int,
    through: bool = False,
) -> list[Step]:
    """Each step in turn, until one breaks a goal (with ``through``, every step)."""
    done: list[Step] = []
    target = Target(site.https_port, str(site.root_certificate))
    asyncio.run(Client(target).warm_up(tables=8, rounds=10))
    with clients(target, count) as fleet:
        for phones in steps:
            began = time.monotonic()
            grown = fleet.grow(phones)
            grow_s = time.monotonic() - began
            print(f"{phones} phones: {grown.live} live after {grow_s:.0f} s", flush=True)
            time.sleep(2)
            with cpu_watch(lambda: site.processes() | fleet.named()) as cpu:
                measured = fleet.measure(window, every)
            step = Step(
                phones=phones,
                grown=grown,
                window=measured,
                grow_s=grow_s,
                caddy_files=open_files(site.caddy.pid),
                memory=memory_of(site, fleet),
                load=os.getloadavg()[0],
                cpu=cpu[0],
            )
            done.append(step)
            print(row(step), resources(step), sep="\n", flush=True)
            if step.broken():
                print("broken: " + ", ".join(step.broken()), flush=True)
                if not through or step.grown.live < step.phones:
                    break
    return done


@dataclass(frozen=True)
class Floor:
    tally: Tally
    server_mb: float
    clients_mb: float
    cpu: Cpu


def floor_run(phones: int, window: float, every: float, count: int, folder: Path) -> Floor:
    """The floor holding ``phones`` streams for ``window`` seconds of deals."""
    (port,) = free_ports(1)
    log = folder / "floor.log"
    command = [sys.executable, "-m", "bench.capacity", "--serve-floor", str(port)]
    with running(command, env={**os.environ, "PYTHONPATH": str(ROOT)}, log=log) as server:
        wait_until(lambda: _listening(port), process=server, log=log, what="the floor")
        with clients(Target(port, None), count) as fleet:
            grown = fleet.grow(phones)
            print(f"floor: {grown.live} live", flush=True)
            time.sleep(2)
            with cpu_watch(lambda: {server.pid: "floor"} | fleet.named()) as cpu:
                measured = fleet.measure(window, every)
            measured.failed += grown.failed
            measured.refused += grown.refused
            return Floor(measured, resident_mb(server.pid), sum(fleet.memory()), cpu[0])


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


# --- the report --------------------------------------------------------------------------------


def ms(value: float) -> str:
    """Seconds as milliseconds: tenths below 10 ms."""
    if value != value:
        return "–"
    return f"{value * 1000:.1f}" if value < 0.01 else f"{value * 1000:,.0f}"


def row(step: Step) -> str:
    """The step's line in the table of times and errors."""
    w = step.window
    return (
        f"| {step.phones:,} | {step.phones // PHONES_PER_TABLE:,} | {w.deals:,} "
        f"| {ms(percentile(w.deal_s, 50))} | {ms(percentile(w.deal_s, 99))} "
        f"| {ms(percentile(w.push_s, 50))} | {ms(percentile(w.push_s, 95))} "
        f"| {ms(max(w.push_s, default=float('nan')))} "
        f"| {step.failed:,} / {step.refused:,} | {step.errors:,} "
        f"| {w.reconnects:,} / {w.restarts:,} |"
    )


def resources(step: Step) -> str:
    """The step's line in the table of what it cost."""

    def sizes(kind: str) -> str:
        return " / ".join(f"{size:.0f}" for name, size in step.memory.items() if kind in name)

    clients_mb = sum(size for name, size in step.memory.items() if name.startswith("client"))
    streams_cores = sum(
        cores for name, cores in step.cpu.by.items() if name.startswith("streams worker")
    )
    return (
        f"| {step.phones:,} | {step.grow_s:.0f} | {step.grown.failed:,} / {step.grown.refused:,} "
        f"| {step.caddy_files:,} "
        f"| {step.memory['Caddy']:,.0f} | {sizes('app worker')} | {sizes('streams worker')} "
        f"| {clients_mb:,.0f} | {streams_cores:.2f} | {step.cpu.ours:.2f} / {step.cpu.others:.2f} "
        f"| {step.load:.1f} "
        f"| {ms(step.window.lag_s)} |"
    )


def machine() -> str:
    postgres = "?"
    with suppress(psycopg.Error), psycopg.connect(POSTGRES, connect_timeout=5) as connection:
        found = connection.execute("SHOW server_version").fetchone()
        postgres = str(found[0]).split()[0] if found else "?"
    caddy = subprocess.run(["caddy", "version"], capture_output=True, text=True, timeout=10)
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{os.cpu_count()} cores, {memory:.0f} GB, Python {platform.python_version()}, "
        f"PostgreSQL {postgres}, Caddy {caddy.stdout.split()[0] if caddy.stdout else '?'}, "
        f"{platform.system()} {platform.machine()}"
    )


def report(
    command: str,
    steps: list[Step],
    ceiling: int,
    window: float,
    every: float,
    count: int,
    floor: Floor,
    load_before: tuple[float, float, float],
    took_s: float,
) -> str:
    held = [step for step in steps if not step.broken()]
    last = steps[-1]
    if held:
        limit = f"**{held[-1].phones:,} live phones** ({held[-1].phones // 2:,} tables)"
    else:
        limit = f"**fewer than {steps[0].phones:,} live phones**"
    if last.broken():
        why = (
            f"the step of {last.phones:,} broke it: {', '.join(last.broken())}; other "
            f"processes on the machine kept {last.cpu.others:.2f} cores busy in its window."
        )
    elif last.phones >= ceiling:
        why = (
            f"the ramp stopped at the files limit, not at a goal: {ceiling:,} phones is this "
            f"sandbox's ceiling (Caddy holds two files a stream, the phone's and the app's, "
            f"and a process may open {resource.getrlimit(resource.RLIMIT_NOFILE)[1]:,}"
            + "".join(f"; {each}" for each in _files_limit_held)
            + ")."
        )
    else:
        why = "the ramp ended with its steps, not at a goal."
    below = [step for step in steps if held and step.phones < held[-1].phones and step.broken()]
    if below:
        why += (
            " Below it, "
            + "; ".join(
                f"the step of {step.phones:,} broke a goal ({', '.join(step.broken())}) "
                f"while other processes kept {step.cpu.others:.2f} cores busy"
                for step in below
            )
            + " (`--through` went on past them)."
        )
    revision = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=10,
    ).stdout.strip()
    load_after = os.getloadavg()
    top = last.window
    ratios = [
        percentile(top.push_s, share) / percentile(floor.tally.push_s, share)
        if floor.tally.push_s
        else float("nan")
        for share in (50, 95)
    ]
    lines = [
        "## Capacity: live phones on one small server",
        "",
        f"Run on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC at {revision}, in {took_s / 60:.0f} "
        f"minutes: `{command}`; {machine()}; load average "
        f"{' / '.join(f'{each:.1f}' for each in load_before)} before, "
        f"{' / '.join(f'{each:.1f}' for each in load_after)} at the end.",
        "",
        "The production recipe as deploy/README.md runs it by hand, everything on the same "
        "2 cores: Caddy (HTTPS, its own authority) in front of gunicorn for the app (2 "
        "workers x 128 threads) and for the streams service (2 gevent workers), PostgreSQL, "
        "Redis carrying each change between the processes. Rate limits off; the live "
        f"streams' settings as shipped: {STREAMS_PER_ADDRESS} an address and 8 a browser, "
        "per process; a heartbeat every 15 s; a stream ends after 3¾ to 5 minutes (each its "
        "own), and its page opens it again a second later.",
        "",
        "Each table is a match of its own browser shown on two phones, each phone an event "
        "stream over HTTPS (HTTP/1.1) through Caddy from addresses 127.0.1.1, 127.0.1.2, … "
        f"({TABLES_PER_ADDRESS} tables an address, a club evening behind one router, "
        f"within the app's {STREAMS_PER_ADDRESS} an address), held by {count} asyncio client "
        "processes that behave as the page does. Each phone closes its first stream itself "
        "after a random part of its 5 minutes and opens it again at once, so that the "
        "streams then end and reopen spread over the 5 minutes, as those of phones that "
        "came at any time, not all those of a step at once (*reopened*). At each step, for "
        f"{window:.0f} s, a deal per table every {_every(every)} on average (a Poisson "
        "process over random tables), each a `POST /api/matches/<id>/deals` on a new HTTPS "
        "connection with the table's cookie.",
        "",
        "*Deal*: from sending it (after the TLS handshake) to the answer's last byte. "
        "*Push*: from sending it to each of the table's two phones reading the new match. "
        "*Errors*: deals not answered 2xx, and pushes not heard within 10 s. *Streams "
        "failed*: broken, answered neither 200 nor 429, or silent for two heartbeats (30 s, "
        "opening included: the page then opens it afresh), in the window. Goals: every "
        "phone live, deal p99 ≤ 100 ms, push p95 ≤ 1 s, no stream failed or refused and no "
        "error in the window.",
        "",
        "| phones | tables | deals | deal p50 ms | deal p99 ms | push p50 ms | push p95 ms "
        "| push max ms | streams failed / refused | errors | reopened: at 5 min / by phone |",
        "|" + "---:|" * 11,
        *(row(step) for step in steps),
        "",
        "Opening each step's new tables: the seconds it took to start their matches and open "
        f"their streams ({OPENING * count} at a time, each retried a second after it fails, "
        "as the page does, until it reads its first event), and how often one failed or was "
        "refused meanwhile. What each step cost: Caddy's open files; resident memory (VmRSS, "
        "MB) at the end of the step; the cores busy during the window, the streams workers', "
        "all of the benchmark's processes (the recipe's, PostgreSQL's for its database, the "
        "clients') and all others on the machine; the "
        "1-minute load average; the clients' event loops' worst lateness (*lag*).",
        "",
        "| phones | opening s | failed / refused opening | Caddy files | Caddy MB "
        "| app workers MB | streams workers MB | clients MB | streams workers cores "
        "| cores: ours / others | load | lag ms |",
        "|" + "---:|" * 12,
        *(resources(step) for step in steps),
        "",
        f"**The limit**: {limit} held within the goals; {why}",
        "",
        _shared(steps, floor),
        "",
        f"Each process at the top step ({last.phones:,} phones): resident memory (VmRSS) "
        "at its end, and the cores it kept busy during its window:",
        "",
        "| process | MB | cores |",
        "|---|---:|---:|",
        *(
            f"| {name} | {_mb(last.memory.get(name))} | {cores:.2f} |"
            for name, cores in last.cpu.by.items()
        ),
        f"| all other processes on the machine | | {last.cpu.others:.2f} |",
        "",
        "### The floor",
        "",
        "A bare asyncio event-stream fan-out server (`serve_floor` in bench/capacity.py: no "
        "Flask, no Caddy, no database, no TLS; one process, plain HTTP over loopback) holding "
        f"the top step's {last.phones:,} streams from the same clients and addresses, for "
        f"{window:.0f} s at the same pace; a deal is a POST that writes one event to its "
        f"table's two streams. Its memory: {floor.server_mb:.0f} MB (its clients': "
        f"{floor.clients_mb:,.0f} MB); cores busy during its window: {floor.cpu.ours:.2f} "
        f"the floor and its clients, {floor.cpu.others:.2f} all others.",
        "",
        "| server | phones | deals | deal p50 ms | deal p99 ms | push p50 ms | push p95 ms "
        "| push max ms | streams failed / refused | errors |",
        "|---|" + "---:|" * 9,
        _floor_row("counter (the recipe)", last.phones, top, last.failed, last.refused),
        _floor_row("floor", last.phones, floor.tally, floor.tally.failed, floor.tally.refused),
        "",
        f"Push ratio counter / floor at {last.phones:,} phones: **{ratios[0]:.1f}x** at "
        f"p50, **{ratios[1]:.1f}x** at p95.",
    ]
    return "\n".join(lines)


def _shared(steps: list[Step], floor: Floor) -> str:
    """Whether the machine was the benchmark's alone, by what the others kept busy."""
    others = [step.cpu.others for step in steps] + [floor.cpu.others]
    if max(others) < 0.1:
        return "The machine was the benchmark's alone: other processes kept under 0.1 cores busy."
    return (
        f"**The machine was shared**: other processes (not the benchmark's) kept "
        f"{min(others):.2f} to {max(others):.2f} of its {os.cpu_count()} cores busy in the "
        "windows (column *cores: others* above), so these figures are lower than the "
        "recipe's on a machine of its own."
    )


def _every(seconds: float) -> str:
    return "two minutes" if seconds == DEAL_EVERY_S else f"{seconds:,.0f} s"


def _mb(size: float | None) -> str:
    return "–" if size is None else f"{size:,.0f}"


def _floor_row(label: str, phones: int, tally: Tally, failed: int, refused: int) -> str:
    return (
        f"| {label} | {phones:,} | {tally.deals:,} | {ms(percentile(tally.deal_s, 50))} "
        f"| {ms(percentile(tally.deal_s, 99))} | {ms(percentile(tally.push_s, 50))} "
        f"| {ms(percentile(tally.push_s, 95))} | {ms(max(tally.push_s, default=float('nan')))} "
        f"| {failed:,} / {refused:,} | {tally.deal_errors + tally.missed:,} |"
    )


FILES_WANTED = 2 * 10_000 + CADDY_SPARE_FILES  # the 10,000 phones through one Caddy
_files_limit_held: list[str] = []  # why the hard limit could not be raised, if it could not


def raise_files_limit() -> None:
    """Open files: as many as 10,000 phones need, if this process may raise its hard limit
    (CAP_SYS_RESOURCE); otherwise all that the hard limit allows."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard < FILES_WANTED:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (FILES_WANTED, FILES_WANTED))
            return
        except (ValueError, OSError) as error:
            _files_limit_held.append(f"raising it to {FILES_WANTED:,} was refused: {error}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def ceiling_phones() -> int:
    """The most phones Caddy's files allow: two a stream, whole tables."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    return (hard - CADDY_SPARE_FILES) // 2 // 100 * 100


def stopping(_number: int, _frame: FrameType | None) -> None:
    raise SystemExit("stopped by a signal")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="500 and 1,000 phones, 15 s each")
    parser.add_argument("--steps", help="phones at each step, e.g. 200,400 (default: the ramp)")
    parser.add_argument("--window", type=float, help="seconds of deals a step")
    parser.add_argument("--clients", type=int, default=CLIENTS)
    parser.add_argument(
        "--through",
        action="store_true",
        help="go on past a step that breaks a goal (a shared machine's noise), while all open",
    )
    parser.add_argument(
        "--every",
        type=float,
        default=DEAL_EVERY_S,
        help="seconds between two deals of a table, on average (default: two minutes)",
    )
    parser.add_argument("--output", type=Path, default=ROOT / "bench" / "RESULTS.md")
    parser.add_argument("--logs", type=Path, help="a folder to keep the servers' logs in")
    parser.add_argument("--serve-floor", type=int, metavar="PORT", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.serve_floor:
        serve_floor(arguments.serve_floor)
        return
    if shutil.which("caddy") is None:
        raise SystemExit("caddy not found: apt-get install caddy")
    raise_files_limit()  # for every process started here
    signal.signal(signal.SIGTERM, stopping)
    ceiling = ceiling_phones()
    if arguments.steps:
        steps = [int(each) for each in arguments.steps.split(",")]
    else:
        chosen = QUICK_STEPS if arguments.quick else (*STEPS, ceiling)
        steps = [each for each in chosen if each <= ceiling]
    steps = [each - each % PHONES_PER_TABLE for each in steps]
    window = arguments.window or (QUICK_WINDOW_S if arguments.quick else WINDOW_S)
    command = "python -m bench.capacity " + " ".join(sys.argv[1:])
    load_before = os.getloadavg()
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="santase-capacity-") as temporary:
        folder = Path(temporary)
        try:
            with recipe(folder) as site:
                done = ramp(
                    site, steps, window, arguments.every, arguments.clients, arguments.through
                )
            floor = floor_run(done[-1].phones, window, arguments.every, arguments.clients, folder)
        finally:
            if arguments.logs:
                arguments.logs.mkdir(parents=True, exist_ok=True)
                for log in folder.glob("*.log"):
                    shutil.copy(log, arguments.logs / log.name)
    text = report(
        command.strip(),
        done,
        ceiling,
        window,
        arguments.every,
        arguments.clients,
        floor,
        load_before,
        time.monotonic() - began,
    )
    sections.write(arguments.output, "capacity", text)
    print(text)


if __name__ == "__main__":
    main()
