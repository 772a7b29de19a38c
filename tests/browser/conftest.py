"""Fixtures of the browser tests: the app served by this process, Chromium, and a phone's
page, at 127.0.0.1 and at a name on the home Wi-Fi (plain http). What drives a phone is in
tests/phones.py.

Needs Chromium at /usr/bin/chromium (Debian: apt-get install chromium); without it these
tests skip and say so. CI installs it and fails if they did not run.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import Browser, Page, sync_playwright
from werkzeug.serving import make_server

from apps import TEST_DATABASE_URL, make_app, stop_app
from phones import CHROMIUM, CHROMIUM_ARGS, LAN_NAME, MISSING_CHROMIUM, phone


@pytest.fixture(scope="session", autouse=True)
def chromium_installed() -> None:
    """Every test here skips, saying why, where there is no Chromium (before any fixture of
    a module, as those of a wider scope come first)."""
    if not CHROMIUM.exists():
        pytest.skip(MISSING_CHROMIUM)


@pytest.fixture(scope="module")
def served(migrated_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The app on 127.0.0.1, served by threads of this process: (address, app)."""
    if TEST_DATABASE_URL:
        url = migrated_database
    else:
        copy = tmp_path_factory.mktemp("browser") / "browser.sqlite"
        copy.write_bytes(Path(migrated_database.removeprefix("sqlite:///")).read_bytes())
        url = f"sqlite:///{copy}"
    app: Flask = make_app(url)
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}", app
    http.shutdown()
    stop_app(app)


@pytest.fixture(scope="module")
def server(served: Any) -> str:
    return str(served[0])


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    context = phone(browser, server)
    tab = context.new_page()
    yield tab
    context.close()


@pytest.fixture(scope="module")
def lan_server(server: str) -> str:
    """The same server at a name that maps to loopback, as a phone on the Wi-Fi reaches it."""
    return server.replace("127.0.0.1", LAN_NAME)


@pytest.fixture
def lan_page(browser: Browser, lan_server: str) -> Iterator[Page]:
    """A phone at http://counter.test:<port>; the service worker would register if it could."""
    context = phone(browser, lan_server, service_workers="allow")
    tab = context.new_page()
    yield tab
    context.close()
