"""Gunicorn serving the real app in a process group of its own, to be killed and started
again, and browsers (cookie jars) calling it: for the tests of a server killed mid-write."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.request import HTTPCookieProcessor, OpenerDirector, Request, build_opener

from bench.recipe import free_ports

from waiting import until

WORKERS = 3


def free_port() -> int:
    return free_ports(1)[0]


class Server:
    """Gunicorn running counter.wsgi:app in its own process group."""

    def __init__(self, database_url: str, folder: Path) -> None:
        self.port = free_port()
        self.env = {
            **os.environ,
            "SECRET_KEY": "fault-test-key-" + "x" * 32,
            "DATABASE_URL": database_url,
            "TRUSTED_HOSTS": "127.0.0.1",
            # Phones on one address record far faster than any table: no limits here.
            "FLASK_RATELIMIT_ENABLED": "false",
        }
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with (self.folder / "gunicorn.log").open("ab") as log:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "--workers",
                    str(WORKERS),
                    "--bind",
                    f"127.0.0.1:{self.port}",
                    "counter.wsgi:app",
                ],
                env=self.env,
                stdout=log,
                stderr=log,
                start_new_session=True,
                cwd=self.folder,
            )
        assert until(self.healthy, within=30), "gunicorn did not answer /health within 30 s"

    def healthy(self) -> bool:
        try:
            with build_opener().open(self.base + "/health", timeout=2) as response:
                return bool(response.status == 200)
        except (URLError, OSError):
            return False

    def kill(self) -> None:
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)


@dataclass
class Browser:
    """One browser (a cookie jar), maybe shared by several phones: the deals it was told
    of, and how many of its tries got no answer."""

    opener: OpenerDirector = field(
        default_factory=lambda: build_opener(HTTPCookieProcessor(CookieJar()))
    )
    acknowledged: list[tuple[int, str]] = field(default_factory=list)
    failed_tries: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def failed(self) -> None:
        with self.lock:
            self.failed_tries += 1

    def call(
        self, base: str, method: str, path: str, body: dict[str, Any] | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = Request(
            base + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with self.opener.open(request, timeout=5) as response:
                return response.status, json.load(response)
        except HTTPError as error:
            return error.code, json.load(error)
