"""Configuration: defaults, then the environment, then (in tests) the mapping given."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask

SECRET_KEY_FILE = "secret_key"
DATABASE_FILE = "santase.sqlite"
PLACEHOLDER_SECRETS = frozenset({"", "dev", "change-me", "changeme", "secret", "placeholder"})


def configure(
    app: Flask, test_config: Mapping[str, Any] | None, *, production: bool = False
) -> None:
    """Fill ``app.config``; read once, before the extensions are set up."""
    instance = Path(app.instance_path)
    app.config.from_mapping(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{instance / DATABASE_FILE}",
        PERMANENT_SESSION_LIFETIME=timedelta(days=365),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        MAX_CONTENT_LENGTH=64 * 1024,
        IMPORT_MAX_BYTES=16 * 1024 * 1024,  # one import, by page or API; every other request 64 KB
        AUTO_MIGRATE=True,
        TRUSTED_PROXIES=0,
    )
    if test_config is None:
        if "DATABASE_URL" in os.environ:
            app.config["SQLALCHEMY_DATABASE_URI"] = os.environ["DATABASE_URL"]
        if "SECRET_KEY" in os.environ:
            app.config["SECRET_KEY"] = os.environ["SECRET_KEY"]
        app.config.from_prefixed_env()  # FLASK_SECRET_KEY, FLASK_SQLALCHEMY_DATABASE_URI, ...
    else:
        app.config.from_mapping(test_config)
    app.config["SQLALCHEMY_DATABASE_URI"] = database_url(app.config["SQLALCHEMY_DATABASE_URI"])
    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite:///"):
        instance.mkdir(parents=True, exist_ok=True)
    if production and not app.config.get("SECRET_KEY"):
        raise RuntimeError(
            "SECRET_KEY is not set. In production every server of the site needs the same "
            "long random key: export SECRET_KEY=$(python3 -c 'import secrets; "
            "print(secrets.token_hex(32))')"
        )
    app.config["SECRET_KEY"] = secret_key(app.config.get("SECRET_KEY"), instance)


def database_url(url: str) -> str:
    """Send PostgreSQL URLs to psycopg 3, the driver this project installs."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def secret_key(configured: object, instance: Path) -> str:
    """The configured key, or one generated once into the instance folder for local use."""
    if configured is not None:
        key = str(configured)
        if key.strip().lower() in PLACEHOLDER_SECRETS:
            raise RuntimeError(
                "SECRET_KEY is a placeholder; set it to a long random value, e.g. "
                "python -c 'import secrets; print(secrets.token_hex(32))'."
            )
        return key
    path = instance / SECRET_KEY_FILE
    if not path.exists():
        instance.mkdir(parents=True, exist_ok=True)
        draft = instance / f".{SECRET_KEY_FILE}.{os.getpid()}"
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_hex(32))
        # A hard link appears whole or not at all, so workers starting together
        # all end up with the key of whichever linked first.
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text().strip()
