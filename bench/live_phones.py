"""Phones for the capacity run (bench/capacity.py): each an asyncio client that holds a
match's live stream over HTTPS as the page does (reconnecting, resuming, opening afresh
after two silent heartbeats) and records deals at a table's pace, measuring each deal's
answer and its push to the table's phones; and the floor, a bare event-stream fan-out
server the same phones hold instead.

A client process is driven by commands through a pipe (:class:`Grow`, :class:`Measure`,
:class:`Stop`) and answers each with a :class:`Tally`.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import signal
import ssl
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from math import ceil
from multiprocessing.connection import Connection

from bench.recipe import HOST

PHONES_PER_TABLE = 2
TARGET = 15  # the longest match: alternate winners keep it going for 28 deals
LONGEST = 2 * (TARGET - 1)  # deals before the next one would end it: then an undo instead

TIMEOUT_S = 10.0  # a connection, a handshake, an answer
PUSH_TIMEOUT_S = 10.0  # a push not heard by then is an error
RETRY_S = 1.0  # the app's "retry: 1000": EventSource reconnects this long after an end
HEARTBEAT_S = 15.0  # the app's SANTASE_LIVE_HEARTBEAT_S as shipped
LIFETIME_S = 300.0  # the app's SANTASE_LIVE_LIFETIME_S as shipped
SILENT_S = 2 * HEARTBEAT_S  # silence after which the page opens a stream afresh (counter.js)
OPENING = 8  # streams a client opens at once
CREATING = 8  # matches a client starts at once
GROW_TIMEOUT_S = 600.0
RUN_LIMIT_S = 3 * 3600.0  # no stream, deal loop or client outlives this
MAX_COMMANDS = 1_000
MAX_CONNECTS = 10_000  # of one stream in a run (it reconnects every 5 minutes)
MAX_EVENTS = 1_000_000  # read by one stream connection
LAG_EVERY_S = 0.05


# --- what the clients measure ----------------------------------------------------------------


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest rank: the smallest value with at least ``share`` percent at or below it."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, ceil(share / 100 * len(ordered)) - 1)]


@dataclass
class Tally:
    """What happened to the streams and the deals of one client over a stretch of time."""

    opened: int = 0  # streams that read their first event
    failed: int = 0  # streams broken, silent, or answered neither 200 nor 429
    refused: int = 0  # streams answered 429
    reconnects: int = 0  # streams the server ended (their 5 minutes), opened again
    restarts: int = 0  # first streams the phone closed and opened again (see Client.hold)
    deals: int = 0
    deal_errors: int = 0  # answered other than 200/201, or not at all
    missed: int = 0  # pushes not heard within PUSH_TIMEOUT_S
    reasons: Counter[str] = field(default_factory=Counter)
    deal_s: list[float] = field(default_factory=list)
    push_s: list[float] = field(default_factory=list)
    lag_s: float = 0.0  # the client's event loop's longest lateness
    live: int = 0  # streams live at the end

    def add(self, other: Tally) -> None:
        for name in ("opened", "failed", "refused", "reconnects", "restarts", "deals"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.deal_errors += other.deal_errors
        self.missed += other.missed
        self.reasons.update(other.reasons)
        self.deal_s.extend(other.deal_s)
        self.push_s.extend(other.push_s)
        self.lag_s = max(self.lag_s, other.lag_s)
        self.live += other.live


@dataclass(frozen=True)
class Target:
    """Where the clients go: Caddy over HTTPS (the counter), or the floor over HTTP."""

    port: int
    root_certificate: str | None  # None: plain HTTP, the floor

    @property
    def floor(self) -> bool:
        return self.root_certificate is None


@dataclass(frozen=True)
class Grow:
    tables: list[tuple[int, str]]  # (table number, source address)


@dataclass(frozen=True)
class Measure:
    seconds: float
    seed: int
    every: float  # seconds between two deals of a table, on average


@dataclass(frozen=True)
class Stop:
    pass


Command = Grow | Measure | Stop


# --- HTTP/1.1 over asyncio, as little as a phone's streams and deals need ----------------------


Headers = dict[str, list[str]]


async def read_head(
    reader: asyncio.StreamReader, seconds: float = TIMEOUT_S
) -> tuple[int, Headers]:
    raw = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), seconds)
    first, *lines = raw.decode("latin-1").split("\r\n")
    headers: Headers = {}
    for line in lines:
        name, colon, value = line.partition(":")
        if colon:
            headers.setdefault(name.strip().lower(), []).append(value.strip())
    return int(first.split()[1]), headers


def chunked(headers: Headers) -> bool:
    return "chunked" in ",".join(headers.get("transfer-encoding", [])).lower()


async def pieces(
    reader: asyncio.StreamReader, headers: Headers, silence: Callable[[], float]
) -> AsyncIterator[bytes]:
    """The body as it comes, decoded from chunks; ends with the body (at most MAX_EVENTS
    pieces), raises TimeoutError after ``silence()`` seconds without a byte."""
    if "content-length" in headers:
        size = int(headers["content-length"][0])
        yield await asyncio.wait_for(reader.readexactly(size), silence())
        return
    for _ in range(MAX_EVENTS):
        if not chunked(headers):
            piece = await asyncio.wait_for(reader.read(65536), silence())
            if not piece:
                return
            yield piece
            continue
        size_line = await asyncio.wait_for(reader.readuntil(b"\r\n"), silence())
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            await asyncio.wait_for(reader.readuntil(b"\r\n"), TIMEOUT_S)  # no trailers
            return
        piece = await asyncio.wait_for(reader.readexactly(size + 2), silence())
        yield piece[:-2]


async def whole_body(reader: asyncio.StreamReader, headers: Headers) -> bytes:
    return b"".join([piece async for piece in pieces(reader, headers, lambda: TIMEOUT_S)])


def request(
    method: str, path: str, *, body: object = None, cookie: str = "", extra: Sequence[str] = ()
) -> bytes:
    payload = b"" if body is None else json.dumps(body).encode()
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", *extra]
    if cookie:
        lines.append(f"Cookie: {cookie}")
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + payload


def cookies(headers: Headers) -> str:
    return "; ".join(value.split(";", 1)[0] for value in headers.get("set-cookie", []))


# --- a client process: its tables, their phones' streams, their deals -------------------------

Lane = tuple[asyncio.StreamReader, asyncio.StreamWriter]
Failure = (OSError, EOFError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError)


@dataclass
class Table:
    number: int
    address: str
    match_id: int = 0
    cookie: str = ""
    deals: int = 0
    busy: bool = False
    live: list[bool] = field(default_factory=lambda: [False] * PHONES_PER_TABLE)
    # For each phone, the pushes it waits for: (deals the match is to have, when heard).
    waiting: list[list[tuple[int, asyncio.Future[float]]]] = field(
        default_factory=lambda: [[] for _ in range(PHONES_PER_TABLE)]
    )

    def heard(self, phone: int, deals: int, at: float) -> None:
        still = []
        for want, heard in self.waiting[phone]:
            if heard.done():
                continue
            if want == deals:
                heard.set_result(at)
            else:
                still.append((want, heard))
        self.waiting[phone] = still


class Client:
    """One asyncio process's share of the phones, run by commands from the orchestrator."""

    def __init__(self, target: Target) -> None:
        self.target = target
        self.trust: ssl.SSLContext | None = None
        if target.root_certificate is not None:
            self.trust = ssl.create_default_context(cafile=target.root_certificate)
        self.tables: list[Table] = []
        self.tally = Tally()
        self.holding: set[asyncio.Task[None]] = set()
        self.ends = time.monotonic() + RUN_LIMIT_S

    async def dial(self, address: str, seconds: float = TIMEOUT_S) -> Lane:
        return await asyncio.wait_for(
            asyncio.open_connection(
                "127.0.0.1",
                self.target.port,
                ssl=self.trust,
                server_hostname=HOST if self.trust else None,
                local_addr=(address, 0),
            ),
            seconds,
        )

    async def exchange(self, address: str, message: bytes) -> tuple[int, Headers, bytes, float]:
        """One request on a new connection (dialled before the clock starts): the answer,
        and how long it took from sending to its last byte."""
        reader, writer = await self.dial(address)
        try:
            sent = time.perf_counter()
            writer.write(message)
            status, headers = await read_head(reader)
            body = await whole_body(reader, headers)
            return status, headers, body, time.perf_counter() - sent
        finally:
            writer.close()

    # --- tables and streams ---

    async def start(self, table: Table, gate: asyncio.Semaphore) -> None:
        if self.target.floor:
            table.match_id = table.number
            return
        async with gate:
            message = request(
                "POST",
                "/api/matches",
                body={"players": ["Ivan", "Maria"], "target": TARGET},
                extra=["Connection: close"],
            )
            status, headers, body, _took = await self.exchange(table.address, message)
        if status != 201:
            raise SystemExit(f"POST /api/matches answered {status}: {body[:200]!r}")
        table.match_id = int(json.loads(body)["id"])
        table.cookie = cookies(headers)

    def events_path(self, table: Table) -> str:
        if self.target.floor:
            return f"/t/{table.match_id}/events"
        return f"/api/matches/{table.match_id}/events"

    def fail(self, table: Table, phone: int, reason: str) -> None:
        table.live[phone] = False
        self.tally.failed += 1
        self.tally.reasons[reason] += 1

    async def hold(
        self, table: Table, phone: int, gate: asyncio.Semaphore, opened: asyncio.Future[None]
    ) -> None:
        """One phone's stream, as the page holds it: open, read, and after the server
        ends it (or it breaks, or stays silent for two heartbeats, opening included) open it
        again, resuming with Last-Event-ID. A 429 ends it for good (the page then looks
        every 20 s). ``opened`` is done once it reads its first event, or is refused.

        The phone closes its first stream itself after a random part of the stream's
        lifetime, and opens it again at once: from then on its streams end and reopen at
        a moment of their own, as those of phones that came at any time, instead of all
        those of a step within the same few seconds."""
        last_id = ""
        lane: Lane | None = None
        await gate.acquire()  # released once the stream is open, or could not be
        opened.add_done_callback(lambda _opened: gate.release())
        restart = time.monotonic() + random.uniform(0, LIFETIME_S)

        def silence() -> float:
            if not table.live[phone]:
                return SILENT_S
            return max(0.001, min(SILENT_S, restart - time.monotonic()))

        for _ in range(MAX_CONNECTS):
            if time.monotonic() > self.ends:
                break
            try:
                opening = time.monotonic()
                if lane is None:
                    lane = await self.dial(table.address, SILENT_S)
                reader, writer = lane
                extra = ["Accept: text/event-stream", "Cache-Control: no-cache"]
                if last_id:
                    extra.append(f"Last-Event-ID: {last_id}")
                writer.write(
                    request("GET", self.events_path(table), cookie=table.cookie, extra=extra)
                )
                status, headers = await read_head(
                    reader, max(0.1, opening + SILENT_S - time.monotonic())
                )
                if status != 200:
                    table.live[phone] = False
                    if status == 429:
                        self.tally.refused += 1
                    else:
                        self.tally.failed += 1
                    self.tally.reasons[f"stream answered {status}"] += 1
                    writer.close()
                    if status == 429:
                        break
                    lane = None
                    await asyncio.sleep(RETRY_S)
                    continue
                if opened.done():  # open again: live, whether or not the match is sent
                    table.live[phone] = True
                buffer = b""
                async for piece in pieces(reader, headers, silence):
                    buffer += piece
                    while b"\n\n" in buffer:
                        block, buffer = buffer.split(b"\n\n", 1)
                        kind, data, event_id = _event(block)
                        if event_id is not None:
                            last_id = event_id
                        if kind is None and data:
                            deals = len(json.loads(data)["deals"])
                            table.heard(phone, deals, time.perf_counter())
                            if not table.live[phone]:
                                table.live[phone] = True
                                if not opened.done():
                                    self.tally.opened += 1
                                    opened.set_result(None)
                # The server ended the stream (its lifetime): it opens again, on the same
                # connection unless the server closed it.
                self.tally.reconnects += 1
                if not chunked(headers) or "close" in ",".join(headers.get("connection", [])):
                    writer.close()
                    lane = None
            except TimeoutError:
                lane = _close(lane)
                if time.monotonic() >= restart - 0.01 and table.live[phone]:
                    restart = float("inf")
                    self.tally.restarts += 1
                    continue  # the phone opens it again at once
                self.fail(table, phone, "stream silent for two heartbeats")
            except ssl.SSLError as error:
                self.fail(table, phone, f"TLS: {error.reason}")
                lane = _close(lane)
            except Failure as error:
                self.fail(table, phone, f"stream: {type(error).__name__}")
                lane = _close(lane)
            await asyncio.sleep(RETRY_S)
        table.live[phone] = False
        if not opened.done():
            opened.set_result(None)

    async def grow(self, specs: list[tuple[int, str]]) -> Tally:
        """Start the tables' matches and open their phones' streams: what happened since
        the last window, this included."""
        tables = [Table(number, address) for number, address in specs]
        creating = asyncio.Semaphore(CREATING)
        await asyncio.gather(*(self.start(table, creating) for table in tables))
        opening = asyncio.Semaphore(OPENING)
        loop = asyncio.get_running_loop()
        waits: list[asyncio.Future[None]] = []
        for table in tables:
            for phone in range(PHONES_PER_TABLE):
                opened: asyncio.Future[None] = loop.create_future()
                task = loop.create_task(self.hold(table, phone, opening, opened))
                self.holding.add(task)
                task.add_done_callback(self.holding.discard)
                waits.append(opened)
        self.tables += tables
        await asyncio.wait(waits, timeout=GROW_TIMEOUT_S)
        grown, self.tally = self.tally, Tally()
        grown.live = self.live()
        return grown

    def live(self) -> int:
        return sum(sum(table.live) for table in self.tables)

    # --- deals ---

    async def deal(self, table: Table) -> None:
        """One deal (an undo once the match is as long as it can go) and its pushes."""
        table.busy = True
        loop = asyncio.get_running_loop()
        heard: list[asyncio.Future[float]] = []
        try:
            have = table.deals
            if self.target.floor:
                message = request("POST", f"/t/{table.match_id}/deals", body={"after": have})
                want = have + 1
            elif have >= LONGEST:
                path = f"/api/matches/{table.match_id}/deals/last?number={have}"
                message = request("DELETE", path, cookie=table.cookie)
                want = have - 1
            else:
                body = {
                    "player": 1 + have % 2,
                    "outcome": "normal",
                    "request_id": secrets.token_hex(8),
                    "after": have,
                }
                path = f"/api/matches/{table.match_id}/deals"
                message = request("POST", path, body=body, cookie=table.cookie)
                want = have + 1
            extra = b"Prefer: return=minimal\r\nConnection: close\r\n"
            message = message.replace(b"\r\n", b"\r\n" + extra, 1)
            for phone in range(PHONES_PER_TABLE):
                heard.append(loop.create_future())
                table.waiting[phone].append((want, heard[-1]))
            reader, writer = await self.dial(table.address)
            try:
                sent = time.perf_counter()
                writer.write(message)
                status, headers = await read_head(reader)
                await whole_body(reader, headers)
                took = time.perf_counter() - sent
            finally:
                writer.close()
            self.tally.deals += 1
            if status not in (200, 201):
                self.tally.deal_errors += 1
                self.tally.reasons[f"deal answered {status}"] += 1
                return
            table.deals = want
            self.tally.deal_s.append(took)
            done, pending = await asyncio.wait(heard, timeout=PUSH_TIMEOUT_S)
            self.tally.push_s += [each.result() - sent for each in done]
            self.tally.missed += len(pending)
            if pending:
                self.tally.reasons["push not heard within 10 s"] += len(pending)
        except ssl.SSLError as error:
            self.tally.deal_errors += 1
            self.tally.reasons[f"deal: TLS {error.reason}"] += 1
        except (TimeoutError, *Failure) as error:
            self.tally.deal_errors += 1
            self.tally.reasons[f"deal: {type(error).__name__}"] += 1
        finally:
            for each in heard:
                each.cancel()
            table.busy = False

    async def lag(self, until: float) -> None:
        """How late the event loop wakes up: a client too busy to read in time shows here."""
        for _ in range(int((until - time.monotonic()) / LAG_EVERY_S) + 2):
            if time.monotonic() >= until:
                return
            asked = time.monotonic()
            await asyncio.sleep(LAG_EVERY_S)
            self.tally.lag_s = max(self.tally.lag_s, time.monotonic() - asked - LAG_EVERY_S)

    async def measure(self, seconds: float, seed: int, every: float) -> Tally:
        """Deals for ``seconds`` at the tables' pace, then the last ones' pushes: what
        happened since the tables last grew, this included."""
        chance = random.Random(seed)
        loop = asyncio.get_running_loop()
        start = time.monotonic()
        until = start + seconds
        lagging = loop.create_task(self.lag(until))
        rate = len(self.tables) / every
        dealing: list[asyncio.Task[None]] = []
        due = start
        for _ in range(int(rate * seconds * 10) + 10):
            due += chance.expovariate(rate)
            if due >= until:
                break
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            free = [chance.choice(self.tables) for _ in range(8)]
            table = next((each for each in free if not each.busy), None)
            if table is not None:  # a table does not deal twice at once
                dealing.append(loop.create_task(self.deal(table)))
        await asyncio.sleep(max(0.0, until - time.monotonic()))
        await lagging
        if dealing:
            await asyncio.wait(dealing, timeout=2 * TIMEOUT_S + PUSH_TIMEOUT_S)
        measured, self.tally = self.tally, Tally()
        measured.live = self.live()
        return measured

    async def warm_up(self, tables: int, rounds: int) -> None:
        """Deals, undos and streams of a few tables of 127.0.0.1 at once, so that each
        worker has served some (their first requests are slow) before anything counts."""
        warm = [Table(-1 - number, "127.0.0.1") for number in range(tables)]
        await asyncio.gather(*(self.start(table, asyncio.Semaphore(tables)) for table in warm))

        async def stream(table: Table) -> None:
            reader, writer = await self.dial(table.address)
            try:
                path = self.events_path(table)
                writer.write(request("GET", path, cookie=table.cookie))
                await read_head(reader)
            finally:
                writer.close()

        async def deal(table: Table, number: int) -> None:
            path = f"/api/matches/{table.match_id}/deals"
            body = {"player": 1, "outcome": "normal", "request_id": f"warm-{number}"}
            close = ["Connection: close"]
            for method, message in (
                ("POST", request("POST", path, body=body, cookie=table.cookie, extra=close)),
                ("DELETE", request("DELETE", f"{path}/last", cookie=table.cookie, extra=close)),
            ):
                status, _headers, answer, _took = await self.exchange(table.address, message)
                if status not in (200, 201):
                    raise SystemExit(f"warming up, a {method} answered {status}: {answer[:200]!r}")

        for number in range(rounds):
            if number < 2:  # a few streams, not one a round
                await asyncio.gather(*(stream(table) for table in warm for _ in range(2)))
            await asyncio.gather(*(deal(table, number) for table in warm))

    async def serve(self, commands: Connection) -> None:
        loop = asyncio.get_running_loop()
        for _ in range(MAX_COMMANDS):
            command: Command = await loop.run_in_executor(None, commands.recv)
            if isinstance(command, Grow):
                commands.send(await self.grow(command.tables))
            elif isinstance(command, Measure):
                commands.send(await self.measure(command.seconds, command.seed, command.every))
            else:
                break
        for task in list(self.holding):
            task.cancel()
        await asyncio.gather(*self.holding, return_exceptions=True)


def _close(lane: Lane | None) -> Lane | None:
    """Close ``lane`` if there is one: no lane any more."""
    if lane is not None:
        lane[1].close()
    return None


def _event(block: bytes) -> tuple[str | None, str, str | None]:
    """An event stream's event: its kind, data and id."""
    kind: str | None = None
    event_id: str | None = None
    data: list[str] = []
    for line in block.decode().split("\n"):
        name, _colon, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            kind = value
        elif name == "data":
            data.append(value)
        elif name == "id":
            event_id = value
    return kind, "\n".join(data), event_id


def client_main(commands: Connection, target: Target) -> None:
    """A client process (multiprocessing's spawn)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the orchestrator stops it
    asyncio.run(Client(target).serve(commands))


# --- the floor: a bare event-stream fan-out server ---------------------------------------------


def serve_floor(port: int) -> None:
    """``GET /t/<n>/events`` holds a stream (the table's deals so far, then one event a
    deal, and the app's heartbeat every 15 s); ``POST /t/<n>/deals`` counts a deal and
    writes it to the table's streams."""
    streams: dict[int, set[asyncio.StreamWriter]] = {}
    deals: dict[int, int] = {}

    def event(table: int) -> bytes:
        return f"data: {json.dumps({'deals': [1] * deals.get(table, 0)})}\n\n".encode()

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), TIMEOUT_S)
            method, path, *_version = head.split(b"\r\n", 1)[0].decode().split(" ")
            table = int(path.split("/")[2])
            if method == "GET":
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
                writer.write(event(table))
                streams.setdefault(table, set()).add(writer)
                try:
                    await reader.read()  # until the phone goes
                finally:
                    streams[table].discard(writer)
                return
            for line in head.decode().split("\r\n"):
                name, _colon, value = line.partition(":")
                if name.lower() == "content-length":
                    await reader.readexactly(int(value))
            deals[table] = deals.get(table, 0) + 1
            for each in streams.get(table, ()):
                each.write(event(table))
            body = json.dumps({"deals": deals[table]}).encode()
            writer.write(
                b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
            )
            await writer.drain()
        except (*Failure, TimeoutError):
            pass
        finally:
            writer.close()

    async def run() -> None:
        server = await asyncio.start_server(answer, "127.0.0.1", port, backlog=4096)
        async with server:
            for _ in range(int(RUN_LIMIT_S / HEARTBEAT_S)):
                await asyncio.sleep(HEARTBEAT_S)
                for table in streams.values():
                    for each in table:
                        each.write(b"event: beat\ndata:\n\n")

    asyncio.run(run())
