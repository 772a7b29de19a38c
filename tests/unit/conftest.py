"""The unit tests build no app and open no database: a test here that asks for one (the
``app`` and ``client`` fixtures ask for the migrated database) belongs in
tests/integration."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def migrated_database() -> str:
    pytest.fail("a unit test builds no app and opens no database: move it to tests/integration")
