"""The production recipe started on this machine, as deploy/README.md runs it by hand:
for the tests of tests/deploy and for the benchmarks alike (one way to start it).

gunicorn with deploy/gunicorn.conf.py (the app, and its streams service under gevent) on
free ports of 127.0.0.1 for each app server, Caddy with deploy/Caddyfile in front of them
all (its own certificate authority, ``SANTASE_TLS=internal``), a PostgreSQL database of
its own and a prefix of its own in Redis; everything stopped again on the way out.
Something missing (PostgreSQL or Redis not answering) raises :class:`Unavailable`; a
process that does not start raises :class:`NotStarted` with its output.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

import psycopg
import redis
from psycopg import sql

ROOT = Path(__file__).resolve().parent.parent
HOST = "counter.test"  # the site's name; every client here dials it at 127.0.0.1
POSTGRES = "postgresql://postgres@127.0.0.1:5432/postgres"
TIMEOUT_S = 5.0  # a connection, an answer, an administrative query
STARTUP_S = 90.0  # generous: a machine shared with other work starts slowly
GUNICORN = [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "counter.wsgi:app"]


class Unavailable(RuntimeError):
    """What the recipe needs (PostgreSQL, Redis) does not answer."""


class NotStarted(RuntimeError):
    """A process of the recipe ended, or did not answer, before it was ready."""


def free_ports(count: int) -> list[int]:
    """Ports of 127.0.0.1 free right now (all held at once, so all different)."""
    with ExitStack() as stack:
        held = [stack.enter_context(socket.socket()) for _ in range(count)]
        for each in held:
            each.bind(("127.0.0.1", 0))
        return [int(each.getsockname()[1]) for each in held]


@contextmanager
def fresh_database(kind: str) -> Iterator[str]:
    """A PostgreSQL database of its own (``santase_<kind>_…``), dropped afterwards."""
    name = f"santase_{kind}_{secrets.token_hex(4)}"
    try:
        admin = psycopg.connect(POSTGRES, autocommit=True, connect_timeout=int(TIMEOUT_S))
    except psycopg.OperationalError as error:
        raise Unavailable(
            f"PostgreSQL at {POSTGRES} does not answer ({error}); start it."
        ) from error
    with admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(POSTGRES, autocommit=True, connect_timeout=int(TIMEOUT_S)) as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


@contextmanager
def redis_prefix(url: str, kind: str) -> Iterator[str]:
    """A prefix for the keys and the channel in Redis at ``url``; its keys go afterwards."""
    prefix = f"santase-{kind}-{secrets.token_hex(4)}"
    store = redis.Redis.from_url(url, socket_timeout=TIMEOUT_S)
    try:
        store.ping()
    except redis.RedisError as error:
        store.close()
        raise Unavailable(
            f"Redis at {url} does not answer ({error}); start redis-server."
        ) from error
    try:
        yield prefix
    finally:
        for key in list(store.scan_iter(match=f"*{prefix}*", count=1000))[:100_000]:
            store.delete(key)
        store.close()


@contextmanager
def running(
    command: list[str], *, env: Mapping[str, str], log: Path, stop_s: float = 2 * TIMEOUT_S
) -> Iterator[subprocess.Popen[bytes]]:
    """A process in a group of its own, its output in ``log``; on the way out the group is
    asked to stop (SIGTERM), and whatever of it is left after ``stop_s`` is killed."""
    with log.open("ab") as output:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=dict(env),
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield process
    finally:
        stop(process, stop_s)


def stop(process: subprocess.Popen[bytes], within_s: float = 2 * TIMEOUT_S) -> None:
    """Stop ``process``'s group: SIGTERM, then SIGKILL to whatever is left after ``within_s``."""
    with suppress(ProcessLookupError):  # it may have ended already
        os.killpg(process.pid, signal.SIGTERM)
    with suppress(subprocess.TimeoutExpired):
        process.wait(timeout=within_s)
    with suppress(ProcessLookupError):  # a worker, or all of it if the wait ran out
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=within_s)


def wait_until(
    ready: Callable[[], bool],
    *,
    process: subprocess.Popen[bytes],
    log: Path,
    what: str,
    within_s: float = STARTUP_S,
) -> None:
    """Until ``ready()`` holds; raises :class:`NotStarted`, with the process's output,
    should the process end or ``within_s`` pass first."""
    deadline = time.monotonic() + within_s
    while process.poll() is None and time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.1)
    raise NotStarted(f"{what} did not start; its output:\n{log.read_text()[-3000:]}")


def answers(port: int, trust: ssl.SSLContext | None = None) -> bool:
    """Whether ``GET /health`` answers 200 on ``port`` of 127.0.0.1 (HTTPS with ``trust``)."""
    request = f"GET /health HTTP/1.1\r\nHost: {HOST}\r\nConnection: close\r\n\r\n".encode()
    try:
        with ExitStack() as stack:
            lane = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=2))
            if trust is not None:
                lane = stack.enter_context(trust.wrap_socket(lane, server_hostname=HOST))
            lane.sendall(request)
            return lane.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def app_settings(database: str, redis_url: str, prefix: str, home: Path) -> dict[str, str]:
    """The environment of the recipe's gunicorn, as deploy/santase.env.example sets it."""
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "SANTASE_SECRET_KEY": secrets.token_hex(32),
        "SANTASE_TRUSTED_HOSTS": HOST,
        "SANTASE_DATABASE_URL": database,
        "SANTASE_RATELIMIT_STORAGE_URI": redis_url,
        "SANTASE_RATELIMIT_KEY_PREFIX": prefix,
        "SANTASE_TRUSTED_PROXIES": "1",
        "SANTASE_AUTO_MIGRATE": "true",
        "SANTASE_PUSH_URL": redis_url,
        "SANTASE_PUSH_CHANNEL": f"{prefix}:live",
    }


@dataclass(frozen=True)
class Recipe:
    """The recipe running: its processes, ports, database and Caddy's root certificate."""

    caddy: subprocess.Popen[bytes]
    apps: tuple[subprocess.Popen[bytes], ...]  # one gunicorn a server: the app
    streams: tuple[subprocess.Popen[bytes], ...]  # and its streams service
    https_port: int
    http_port: int
    app_ports: tuple[int, ...]
    streams_ports: tuple[int, ...]
    root_certificate: Path
    database: str
    prefix: str


@contextmanager
def recipe(
    folder: Path,
    *,
    redis_url: str,
    kind: str = "recipe",
    servers: int = 1,
    settings: Mapping[str, str] | None = None,
    app: Mapping[str, str] | None = None,
    streams: Mapping[str, str] | None = None,
    stop_s: float = 2 * TIMEOUT_S,
) -> Iterator[Recipe]:
    """gunicorn (the app, and its streams service) on each of ``servers`` app servers and
    Caddy in front of them all, sharing one PostgreSQL database and Redis; ``settings`` go
    to every gunicorn besides the recipe's, ``app`` and ``streams`` to each kind. Their
    logs are in ``folder``; everything is stopped on the way out."""
    https_port, http_port, admin_port, *ports = free_ports(3 + 2 * servers)
    app_ports, streams_ports = ports[:servers], ports[servers:]
    home = folder / "home"
    home.mkdir(exist_ok=True)
    with ExitStack() as stack:
        database = stack.enter_context(fresh_database(kind))
        prefix = stack.enter_context(redis_prefix(redis_url, kind))
        common = {**app_settings(database, redis_url, prefix, home), **(settings or {})}
        started: dict[str, list[subprocess.Popen[bytes]]] = {"app": [], "streams": []}
        for number, (app_port, streams_port) in enumerate(
            zip(app_ports, streams_ports, strict=True)
        ):
            for role, port, extra in (
                ("app", app_port, app or {}),
                ("streams", streams_port, {"SANTASE_ROLE": "streams", **(streams or {})}),
            ):
                log = folder / f"gunicorn-{role}-{number}.log"
                process = stack.enter_context(
                    running(
                        GUNICORN,
                        env={**common, **extra, "SANTASE_BIND": f"127.0.0.1:{port}"},
                        log=log,
                        stop_s=stop_s,
                    )
                )
                wait_until(
                    lambda port=port: answers(port),  # type: ignore[misc]
                    process=process,
                    log=log,
                    what=f"gunicorn ({role}, server {number})",
                )
                started[role].append(process)
        root = folder / "data/caddy/pki/authorities/local/root.crt"
        caddy_log = folder / "caddy.log"
        caddy = stack.enter_context(
            running(
                ["caddy", "run", "--config", "deploy/Caddyfile", "--adapter", "caddyfile"],
                env={
                    "PATH": os.environ["PATH"],
                    "HOME": str(home),
                    "LANG": "C.UTF-8",
                    "XDG_DATA_HOME": str(folder / "data"),
                    "XDG_CONFIG_HOME": str(folder / "config"),
                    "SANTASE_HOST": HOST,
                    "SANTASE_TLS": "internal",
                    "SANTASE_LISTEN": "127.0.0.1",
                    "SANTASE_HTTPS_PORT": str(https_port),
                    "SANTASE_HTTP_PORT": str(http_port),
                    "SANTASE_ADMIN": f"127.0.0.1:{admin_port}",
                    "SANTASE_UPSTREAM": " ".join(f"127.0.0.1:{port}" for port in app_ports),
                    "SANTASE_STREAMS_UPSTREAM": " ".join(
                        f"127.0.0.1:{port}" for port in streams_ports
                    ),
                },
                log=caddy_log,
                stop_s=stop_s,
            )
        )
        wait_until(
            lambda: root.exists() and answers(https_port, ssl.create_default_context(cafile=root)),
            process=caddy,
            log=caddy_log,
            what="Caddy",
        )
        yield Recipe(
            caddy=caddy,
            apps=tuple(started["app"]),
            streams=tuple(started["streams"]),
            https_port=https_port,
            http_port=http_port,
            app_ports=tuple(app_ports),
            streams_ports=tuple(streams_ports),
            root_certificate=root,
            database=database,
            prefix=prefix,
        )
