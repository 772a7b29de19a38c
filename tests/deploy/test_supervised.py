"""The recipe's gunicorn (deploy/gunicorn.conf.py) as its supervisor runs it: its master
killed outright and started again as systemd would (deploy/santase.service), told to
stop, and its streams service's places freed as the phones go.

Each test starts gunicorn of its own on a free port, on the test's database, without
Redis (one process's streams hear it in memory) and without Caddy (what is tested is
gunicorn's), and stops it afterwards.
"""

from __future__ import annotations

import configparser
import http.client
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.cookies import SimpleCookie
from pathlib import Path

import pytest

from bench.recipe import GUNICORN, HOST, ROOT, answers, free_ports, running, stop, wait_until

from waiting import until

pytestmark = pytest.mark.slow  # gunicorn of its own

TIMEOUT_S = 10  # a connection, an answer, or a stream's end
SERVING_AGAIN_S = 15  # generous: the goal is 5 s, and without the fix it was 14 s and more


def unit(name: str) -> configparser.SectionProxy:
    """The [Service] section of a systemd unit of deploy/."""
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.read(ROOT / "deploy" / name)
    return parser["Service"]


def settings(database_url: str, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "LANG": "C.UTF-8",
        "SANTASE_SECRET_KEY": "supervised-test-key-" + "x" * 32,
        "SANTASE_TRUSTED_HOSTS": HOST,
        "SANTASE_DATABASE_URL": database_url,
        "SANTASE_AUTO_MIGRATE": "true",
        **extra,
    }


@contextmanager
def gunicorn(env: dict[str, str], log: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """gunicorn with deploy/gunicorn.conf.py on a free port, answering: it and its port."""
    (port,) = free_ports(1)
    with running(GUNICORN, env={**env, "SANTASE_BIND": f"127.0.0.1:{port}"}, log=log) as process:
        wait_until(lambda: answers(port), process=process, log=log, what="gunicorn")
        yield process, port


def connect(port: int) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)


def new_match(port: int) -> tuple[str, int]:
    """A match started through the API: the browser's cookie and the match's id."""
    connection = connect(port)
    try:
        body = json.dumps({"players": ["Ivan", "Maria"]})
        headers = {"Host": HOST, "Content-Type": "application/json"}
        connection.request("POST", "/api/matches", body=body, headers=headers)
        answer = connection.getresponse()
        assert answer.status == 201, answer.read()
        cookie = SimpleCookie(answer.headers["Set-Cookie"])
        return "; ".join(f"{k}={v.value}" for k, v in cookie.items()), json.load(answer)["id"]
    finally:
        connection.close()


Opened = tuple[int, http.client.HTTPConnection, http.client.HTTPResponse]


def open_stream(port: int, cookie: str, match_id: int) -> Opened:
    """A live stream of the match: its status, connection and answer (its first event read)."""
    connection = connect(port)
    connection.request(
        "GET", f"/api/matches/{match_id}/events", headers={"Host": HOST, "Cookie": cookie}
    )
    answer = connection.getresponse()
    if answer.status == 200:
        while not answer.readline().startswith(b"data: {"):
            pass
    else:
        connection.close()
    return answer.status, connection, answer


# --- a master killed outright ------------------------------------------------------------------


def alive_in_group(group: int) -> bool:
    """Whether a process of the group is still running (zombies waiting to be reaped are not)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False


class Supervisor(threading.Thread):
    """gunicorn's master started again once it ends, as systemd does with the unit's
    ``KillMode=mixed``, ``TimeoutStopSec`` and ``RestartSec``: when the main process has
    died, what is left of the service is waited for (killed once the stop timeout runs
    out), then the restart delay passes, then the service starts again."""

    def __init__(self, process: subprocess.Popen[bytes], env: dict[str, str], log: Path) -> None:
        super().__init__(daemon=True)
        service = unit("santase.service")
        self.stop_timeout_s = float(service["TimeoutStopSec"])
        self.restart_s = float(service["RestartSec"])
        self.process, self.env, self.log = process, env, log
        self.restarted: subprocess.Popen[bytes] | None = None
        self.done = threading.Event()

    def run(self) -> None:
        self.process.wait()
        group = self.process.pid
        if not until(lambda: not alive_in_group(group), within=self.stop_timeout_s):
            os.killpg(group, signal.SIGKILL)  # the stop timeout's SIGKILL to what is left
        # systemd's RestartSec: the supervisor's own wait, not a test waiting for something.
        self.done.wait(self.restart_s)
        with self.log.open("ab") as output:
            self.restarted = subprocess.Popen(
                GUNICORN,
                cwd=ROOT,
                env=self.env,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )


def test_a_killed_master_is_serving_again_within_seconds_under_its_supervisor(
    database_url: str, tmp_path: Path
) -> None:
    """A stream in flight holds a worker (its orphan would wait for it for up to
    ``graceful_timeout``); the master is killed with SIGKILL; the service answers again
    soon after the supervisor starts it anew."""
    (port,) = free_ports(1)
    env = settings(
        database_url,
        SANTASE_BIND=f"127.0.0.1:{port}",
        SANTASE_WORKERS="2",
        SANTASE_THREADS="4",
    )
    log = tmp_path / "gunicorn.log"
    with ExitStack() as stack:
        master = stack.enter_context(running(GUNICORN, env=env, log=log))
        wait_until(lambda: answers(port), process=master, log=log, what="gunicorn")
        cookie, match_id = new_match(port)
        streams = [open_stream(port, cookie, match_id) for _ in range(2)]
        for _status, connection, _answer in streams:
            stack.callback(connection.close)
        assert [status for status, _connection, _answer in streams] == [200, 200]
        supervisor = Supervisor(master, env, log)
        supervisor.start()
        killed = time.monotonic()
        os.kill(master.pid, signal.SIGKILL)
        try:
            serving = until(
                lambda: supervisor.restarted is not None and answers(port),
                within=SERVING_AGAIN_S,
            )
            took = time.monotonic() - killed
        finally:
            supervisor.done.set()
            supervisor.join(timeout=supervisor.stop_timeout_s + TIMEOUT_S)
            if supervisor.restarted is not None:
                stack.callback(stop, supervisor.restarted)
        print(f"serving again {took:.1f} s after kill -9 of the master")
        assert serving, f"not serving after {SERVING_AGAIN_S} s:\n{log.read_text()[-3000:]}"


# --- the streams service -----------------------------------------------------------------------


def test_a_stopping_streams_worker_ends_its_streams_at_once(
    database_url: str, tmp_path: Path
) -> None:
    """Under gevent too: the pages reconnect to a worker that stays, at once."""
    log = tmp_path / "streams.log"
    env = settings(database_url, SANTASE_ROLE="streams", SANTASE_LIVE_HEARTBEAT_S="60")
    with gunicorn(env, log) as (process, port):
        cookie, match_id = new_match(port)
        status, connection, stream = open_stream(port, cookie, match_id)
        assert status == 200
        try:
            os.kill(process.pid, signal.SIGTERM)
            stream.read()  # to its end, before its socket's timeout
        finally:
            connection.close()
        process.wait(timeout=TIMEOUT_S)
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


def test_a_stream_the_phone_closed_frees_its_place_at_once(
    database_url: str, tmp_path: Path
) -> None:
    """Not at its next heartbeat (a minute here): a phone behind a full address that
    reloads its page is live again at once."""
    log = tmp_path / "streams.log"
    env = settings(
        database_url,
        SANTASE_ROLE="streams",
        SANTASE_LIVE_HEARTBEAT_S="60",
        SANTASE_LIVE_STREAMS_PER_ADDRESS="1",
    )
    with gunicorn(env, log) as (_process, port):
        cookie, match_id = new_match(port)
        status, connection, _stream = open_stream(port, cookie, match_id)
        assert status == 200
        assert open_stream(port, cookie, match_id)[0] == 429  # the address is full
        connection.close()
        opened: list[http.client.HTTPConnection] = []

        def reopened() -> bool:
            status, again, _stream = open_stream(port, cookie, match_id)
            if status == 200:
                opened.append(again)
            return status == 200

        assert until(reopened, within=TIMEOUT_S, every=0.2)
        opened[0].close()
