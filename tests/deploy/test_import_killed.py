"""An import cut short by a killed server leaves nothing behind, and sending it again brings
it whole.

Gunicorn serves the real app; the largest import goes in, from a browser without a key
(the key would come with the answer) and from one that has a key; the whole server is
killed with SIGKILL while the import's rows are being written, then started again.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.request import Request

import pytest
from sqlalchemy import func, select, text

from counter.services import archive
from counter.storage.models import Match, db

from apps import make_app
from bulk import bulk_export
from servers import Browser, Server
from waiting import until

pytestmark = pytest.mark.slow

UID = "f" * 32


def count_matches(url: str) -> int:
    app = make_app(url)
    with app.app_context():
        counted = db.session.scalar(select(func.count()).select_from(Match)) or 0
        db.session.remove()
        db.engine.dispose()
    return counted


def rows_being_written(url: str, folder: Path) -> bool:
    """Whether the import's transaction is writing: its INSERTs run (PostgreSQL), or its
    pages spill into the write-ahead log (SQLite)."""
    if url.startswith("sqlite"):
        log = Path(url.removeprefix("sqlite:///") + "-wal")
        return log.exists() and log.stat().st_size > 2_000_000
    app = make_app(url)
    with app.app_context():
        inserting = db.session.scalar(
            text(
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                "AND query LIKE 'INSERT INTO deal%'"
            )
        )
        db.session.remove()
        db.engine.dispose()
    return bool(inserting)


def send_import(server: Server, browser: Browser, body: bytes, answers: list[object]) -> None:
    request = Request(
        server.base + "/api/import",
        data=body,
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    try:
        with browser.opener.open(request, timeout=60) as response:
            answers.append((response.status, json.load(response)))
    except HTTPError as error:
        answers.append((error.code, None))
    except (URLError, OSError) as error:  # the server was killed: no answer
        answers.append(error)


@pytest.mark.parametrize("has_key", [False, True], ids=["without-a-key", "with-a-key"])
def test_an_import_killed_half_way_leaves_nothing_and_a_second_brings_it_whole(
    database_url: str,
    tmp_path: Path,
    has_key: bool,
) -> None:
    server = Server(database_url, tmp_path)
    browser = Browser()
    own = 1 if has_key else 0  # the match that gave the browser its key
    body = bulk_export(archive.MAX_MATCHES - own)  # the most that fits
    try:
        server.start()
        if has_key:
            assert browser.call(server.base, "POST", "/api/matches", {"uid": UID})[0] == 201
        answers: list[object] = []
        importer = threading.Thread(target=send_import, args=(server, browser, body, answers))
        importer.start()
        writing = until(
            lambda: answers or rows_being_written(database_url, tmp_path), within=30, every=0.02
        )
        assert not answers, f"the import was answered before the kill: {answers}"
        assert writing, "the import never began to write"
        server.kill()
        importer.join()
        assert isinstance(answers[0], OSError), answers  # cut short, no answer
        assert count_matches(database_url) == own  # nothing stranded, nothing half-stored

        server.start()
        answers.clear()
        send_import(server, browser, body, answers)
        status, report = answers[0]  # type: ignore[misc]
        assert status == 201
        assert len(report["new"]) == archive.MAX_MATCHES - own
        assert count_matches(database_url) == archive.MAX_MATCHES
        pages = browser.call(server.base, "GET", "/api/matches")[1]["pages"]
        assert pages == archive.MAX_MATCHES // 20  # the browser reaches every match
    finally:
        server.stop()
