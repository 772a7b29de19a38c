"""A confirmed import that this browser cannot take shows the import page again, saying why."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from counter.services import archive

from bulk import bulk_export
from helpers import submit


def test_a_confirmed_import_over_the_browsers_cap_shows_the_import_page_again(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(archive, "MAX_MATCHES", 2)
    kept = client.post("/api/import", data=bulk_export(2), content_type="application/json")
    assert kept.status_code == 201
    response = submit(client, "/import/confirm", payload=bulk_export(1, first=10).decode())
    page = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "This browser would then keep more than 2 matches." in page
    assert 'name="archive" type="file"' in page  # another file can be chosen right here
    assert len(client.get("/api/matches").json["matches"]) == 2
