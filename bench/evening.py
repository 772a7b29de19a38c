"""A club evening through the production recipe: 30 tables, 60 phones, the board and 20
spectators; how soon each deal shows on every board.

    python -m bench.evening                 # a deal every 30 s a table, for 120 s
    python -m bench.evening --every 10 --window 60 --output /tmp/evening.md

It starts the recipe as bench/capacity.py does (its :func:`~bench.capacity.recipe`: Caddy,
the app's gunicorn, the streams' gunicorn, PostgreSQL, Redis), hosts an evening of 60
players over HTTPS as a browser does (its forms, with their CSRF tokens), starts round 1
(30 tables), and opens each table's link on two phones, each holding its match's event
stream as the counter page does. The board and 20 spectators hold the board's stream.
Then, for a window, one phone of each table records deals at ``--every`` seconds a table on
average (a Poisson process over random tables); for each deal, the time from sending it
until each of the 21 boards shows the table's new score. The figures go to the "evening"
section of bench/RESULTS.md. Nothing here asserts a figure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import ssl
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from bench import sections
from bench.capacity import recipe
from bench.live_phones import (
    Headers,
    _event,
    cookies,
    percentile,
    pieces,
    read_head,
    request,
    whole_body,
)
from bench.recipe import HOST

ROOT = Path(__file__).resolve().parent.parent
TABLES = 30
BOARDS = 21  # the board on the wall and 20 spectators' phones
GOAL_S = 1.0
TIMEOUT_S = 10.0
STREAMS_PER_ADDRESS = 30  # under the app's 40 an address
SCORES = re.compile(r"data-table=\"(\d+)\">.*?data-score>(\d+):(\d+)<", re.S)


@dataclass
class Seat:
    number: int
    token: str
    match_id: int
    cookie: str = ""
    deals: int = 0
    sent: dict[int, float] = field(default_factory=dict)  # deals the match is to have: when


@dataclass
class Figures:
    deal_s: list[float] = field(default_factory=list)
    board_s: list[float] = field(default_factory=list)
    phone_s: list[float] = field(default_factory=list)
    errors: int = 0
    missed: int = 0


class Evening:
    def __init__(self, port: int, root: Path) -> None:
        self.port = port
        self.trust = ssl.create_default_context(cafile=str(root))
        self.streams = 0

    def _address(self) -> str:
        self.streams += 1
        return f"127.0.2.{1 + self.streams // STREAMS_PER_ADDRESS}"

    async def open(
        self, address: str = "127.0.0.1"
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(
            "127.0.0.1",
            self.port,
            ssl=self.trust,
            server_hostname=HOST,
            local_addr=(address, 0),
        )

    async def call(
        self,
        method: str,
        path: str,
        cookie: str,
        *,
        form: dict[str, str] | None = None,
        body: object = None,
    ) -> tuple[int, Headers, bytes]:
        reader, writer = await self.open()
        site = f"https://{HOST}:{self.port}"  # as the app sees it (X-Forwarded-Port)
        extra = [f"Origin: {site}", f"Referer: {site}{path}", "Connection: close"]
        if form is not None:
            data = urlencode(form).encode()
            extra += [
                "Content-Type: application/x-www-form-urlencoded",
                f"Content-Length: {len(data)}",
            ]
            raw = request(method, path, cookie=cookie, extra=extra) + data
        else:
            raw = request(method, path, cookie=cookie, extra=extra, body=body)
        writer.write(raw)
        status, headers = await read_head(reader)
        content = await whole_body(reader, headers)
        writer.close()
        return status, headers, content

    async def host(self) -> tuple[list[Seat], str]:
        """An evening of 60 players, round 1 started: its tables and the board's token."""
        _status, headers, page = await self.call("GET", "/evenings", "")
        cookie = cookies(headers)
        token = re.search(rb'name="csrf_token" value="([^"]+)"', page)
        assert token
        csrf = token.group(1).decode()
        form = {
            "csrf_token": csrf,
            "name": "Bench",
            "players": "\n".join(f"Player {n}" for n in range(1, 2 * TABLES + 1)),
            "format": "swiss",
            "rounds": "3",
            "target": "15",
            "preset": "santase",
        }
        status, headers, answer = await self.call("POST", "/evenings", cookie, form=form)
        assert status == 302, answer[-3000:]
        cookie = cookies(headers) or cookie
        where = headers["location"][0].split(HOST, 1)[-1]
        status, _headers, _ = await self.call(
            "POST", f"{where}/rounds", cookie, form={"csrf_token": csrf, "round": "1"}
        )
        assert status == 302, status
        _status, _headers, page = await self.call("GET", where, cookie)
        links = re.findall(rb'/table/([\w-]+)">', page)
        matches = re.findall(rb'/matches/(\d+)">', page)
        board = re.search(rb"/board/([\w-]+)", page)
        assert board
        assert len(links) == len(matches) == TABLES
        seats = [
            Seat(n, link.decode(), int(match))
            for n, (link, match) in enumerate(zip(links, matches, strict=True), 1)
        ]
        return seats, board.group(1).decode()

    def phone_heard(self, seat: Seat, data: str, at: float, figures: Figures) -> None:
        count = len(json.loads(data).get("deals", []))
        if count in seat.sent:
            figures.phone_s.append(at - seat.sent[count])

    async def stream(
        self, path: str, cookie: str, stop: float, heard: Callable[[str, float], None]
    ) -> None:
        while time.monotonic() < stop:
            reader, writer = await self.open(self._address())
            writer.write(request("GET", path, cookie=cookie, extra=["Accept: text/event-stream"]))
            status, headers = await read_head(reader)
            if status != 200:
                raise SystemExit(f"{path}: {status}")
            buffer = b""
            try:
                async for piece in pieces(
                    reader, headers, lambda: max(1.0, stop - time.monotonic())
                ):
                    buffer += piece
                    while b"\n\n" in buffer:
                        block, buffer = buffer.split(b"\n\n", 1)
                        kind, data, _ = _event(block)
                        if kind is None and data:
                            heard(data, time.monotonic())
            except TimeoutError:
                pass
            writer.close()
            await asyncio.sleep(1)

    def board_heard(
        self, seats: list[Seat], seen: set[tuple[int, int]], data: str, at: float, figures: Figures
    ) -> None:
        """What one board shows: each deal's time to it, the first time it shows it."""
        html = json.loads(data)["html"]
        for number, one, two in SCORES.findall(html):
            seat = seats[int(number) - 1]
            for count, sent in list(seat.sent.items()):
                if count <= int(one) + int(two) and (seat.number, count) not in seen:
                    seen.add((seat.number, count))
                    figures.board_s.append(at - sent)

    async def deal(self, seat: Seat, figures: Figures) -> None:
        seat.deals += 1
        count = seat.deals
        seat.sent[count] = time.monotonic()
        body = {"player": 1 + count % 2, "outcome": "normal"}
        began = time.monotonic()
        status, _h, _b = await self.call(
            "POST", f"/api/matches/{seat.match_id}/deals", seat.cookie, body=body
        )
        figures.deal_s.append(time.monotonic() - began)
        if status != 201:
            figures.errors += 1


async def run(port: int, root: Path, every: float, window: float) -> tuple[Figures, int]:
    evening = Evening(port, root)
    seats, board = await evening.host()
    figures = Figures()
    stop = time.monotonic() + window + 20
    tasks = []
    for seat in seats:
        first = await evening.call("GET", f"/table/{seat.token}", "")
        seat.cookie = cookies(first[1])
        for _ in range(2):
            tasks.append(
                asyncio.create_task(
                    evening.stream(
                        f"/api/matches/{seat.match_id}/events",
                        seat.cookie,
                        stop,
                        lambda data, at, seat=seat: evening.phone_heard(seat, data, at, figures),
                    )
                )
            )
    boards = []
    for _ in range(BOARDS):
        seen: set[tuple[int, int]] = set()
        boards.append(
            asyncio.create_task(
                evening.stream(
                    f"/api/board/{board}/events",
                    "",
                    stop,
                    lambda data, at, seen=seen: evening.board_heard(seats, seen, data, at, figures),
                )
            )
        )
    await asyncio.sleep(5)  # every stream open and past its first event
    draw = random.Random(7)
    ends = time.monotonic() + window
    sent = 0
    pending = []
    while (left := ends - time.monotonic()) > 0:
        await asyncio.sleep(min(left, draw.expovariate(TABLES / every)))
        seat = draw.choice([s for s in seats if s.deals < 28])
        pending.append(asyncio.create_task(evening.deal(seat, figures)))
        sent += 1
    await asyncio.gather(*pending)
    await asyncio.sleep(TIMEOUT_S)
    for task in tasks + boards:
        task.cancel()
    figures.missed = sent * BOARDS - len(figures.board_s)
    return figures, sent


def row(name: str, values: list[float]) -> str:
    shares = (50, 95, 99, 100)
    return f"| {name} | " + " | ".join(f"{percentile(values, p) * 1000:.0f}" for p in shares) + " |"


def report(figures: Figures, sent: int, every: float, window: float) -> str:
    late = sum(1 for value in figures.board_s if value > GOAL_S)
    rows = "\n".join(
        [
            row("deal answered (ms)", figures.deal_s),
            row("deal on each board (ms)", figures.board_s),
            row("deal on the table's phones (ms)", figures.phone_s),
        ]
    )
    return f"""## A club evening: 30 tables, 60 phones, the board and 20 spectators

`python -m bench.evening --every {every:g} --window {window:g}`: the production recipe
(bench/capacity.py's), an evening of 60 players (Swiss), round 1 on 30 tables; each table's
link open on two phones holding the match's stream, the board's stream held 21 times. A
deal every {every:g} s a table on average for {window:g} s: {sent} deals.

| figure | p50 | p95 | p99 | max |
|---|---|---|---|---|
{rows}

Board updates seen: {len(figures.board_s)} of {sent * BOARDS} ({sent} deals x {BOARDS} boards);
over a second: {late}; deal errors: {figures.errors}. The machine's load average at the end
(1, 5, 15 min; 2 cores): {", ".join(f"{x:.1f}" for x in os.getloadavg())}.
Each board's stream reads the evening and draws its body again at each change: every
deal is drawn 21 times, in the same two gevent workers that serve the phones' streams.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=float, default=30.0)
    parser.add_argument("--window", type=float, default=120.0)
    parser.add_argument("--output", type=Path, default=ROOT / "bench/RESULTS.md")
    arguments = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="santase-evening-") as folder,
        recipe(Path(folder)) as made,
    ):
        figures, sent = asyncio.run(
            run(made.https_port, made.root_certificate, arguments.every, arguments.window)
        )
    text = report(figures, sent, arguments.every, arguments.window)
    print(text)
    sections.write(arguments.output, "evening", text)


if __name__ == "__main__":
    main()
