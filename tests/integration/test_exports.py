"""Exports travel as they are read, a batch of matches at a time, a few at once per process."""

from __future__ import annotations

import json

import pytest
from flask.testing import FlaskClient

from counter.web import export_import

from helpers import api_play, api_start


def test_an_export_is_sent_as_it_is_read_and_reads_whole(client: FlaskClient) -> None:
    for _ in range(3):
        match = api_start(client, players=["Ana", "Boris"])
        api_play(client, match["id"], (1, "normal"), (2, "schwarz"))
    with client.get("/api/export") as response:
        assert response.is_streamed
        document = json.loads(response.get_data())
    assert [len(match["deals"]) for match in document["matches"]] == [2, 2, 2]
    assert document["format"] == "santase-counter"


@pytest.mark.parametrize("path", ["/export.json", "/export.csv", "/api/export"])
def test_more_exports_at_once_than_a_process_serves_are_told_to_wait(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    api_start(client, players=["Ana", "Boris"])
    monkeypatch.setattr(export_import, "EXPORT_WAIT_SECONDS", 0.05)
    slots = export_import._exports
    for _ in range(export_import.EXPORTS_AT_ONCE):  # the others being sent meanwhile
        assert slots.acquire(timeout=1)
    try:
        busy = client.get(path)
        assert busy.status_code == 503
        assert "Other exports are under way" in busy.get_data(as_text=True)
    finally:
        for _ in range(export_import.EXPORTS_AT_ONCE):
            slots.release()
    with client.get(path) as again:  # read whole, it gives its place back
        assert again.status_code == 200
        again.get_data()
    assert slots.acquire(timeout=1)
    slots.release()
