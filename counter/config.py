"""Settings: defaults, then ``SANTASE_<name>`` from the environment (or a test's mapping)."""

import json
import os
import re
import secrets
from collections.abc import Mapping
from contextlib import suppress
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask
from sqlalchemy.engine import make_url

PLACEHOLDER_SECRETS = frozenset({"", "dev", "change-me", "changeme", "secret", "placeholder"})
MIN_KEY_BYTES = 32
PREFIX = "SANTASE_"
RENAMED = {"DATABASE_URL": "SQLALCHEMY_DATABASE_URI"}  # the environment's name: the setting
# The release before's names, read with a warning until the next one: FLASK_<name>, and these.
OLD_PREFIX = "FLASK_"
# What the flask command sets and reads itself: never a setting of ours.
FLASK_OWN = ("FLASK_APP", "FLASK_DEBUG", "FLASK_ENV", "FLASK_RUN_", "FLASK_SKIP_DOTENV")
OLD_NAMES = {
    "DATABASE_URL",
    "SECRET_KEY",
    "SECRET_KEY_FILE",
    "SECRET_KEY_FALLBACKS",
    "TRUSTED_HOSTS",
    "SERVER_NAME",
    "RATELIMIT_STORAGE_URI",
    "RATELIMIT_WRITES_PER_BROWSER",
    "RATELIMIT_WRITES_PER_ADDRESS",
    "RATELIMIT_IMPORTS",
    "RATELIMIT_LINKS",
    "PUSH_URL",
    "PUSH_CHANNEL",
}
LISTS = {"SECRET_KEY_FALLBACKS", "TRUSTED_HOSTS"}
KEY_ADVICE = "python3 -c 'import secrets; print(secrets.token_hex(32))'"


def configure(app: Flask, test_config: Mapping[str, Any] | None, *, production: bool) -> None:
    instance, config = Path(app.instance_path), app.config
    config.from_mapping(
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{instance / 'santase.sqlite'}",
        PERMANENT_SESSION_LIFETIME=timedelta(days=365),
        SESSION_REFRESH_EACH_REQUEST=False,
        SESSION_COOKIE_SAMESITE="Lax",
        MAX_CONTENT_LENGTH=64 * 1024,
        IMPORT_MAX_BYTES=16 * 1024 * 1024,
        AUTO_MIGRATE=True,
        TRUSTED_PROXIES=0,
        WRITE_LOCK_TIMEOUT_MS=5000,
        RATELIMIT_ENABLED=True,
        RATELIMIT_STORAGE_URI="memory://",
        RATELIMIT_IN_MEMORY_FALLBACK_ENABLED=True,  # Redis down: count in memory, refuse nothing
        RATELIMIT_SWALLOW_ERRORS=True,
        # A phone that was offline for an evening sends its taps in one burst.
        RATELIMIT_WRITES_PER_BROWSER="600 per minute;6000 per hour",
        RATELIMIT_WRITES_PER_ADDRESS="10 per 10 seconds",
        RATELIMIT_IMPORTS="20 per hour",
        RATELIMIT_IMPORTS_PER_ADDRESS="10 per minute",
        RATELIMIT_LINKS="30 per hour",
        RATELIMIT_LINKS_PER_ADDRESS="10 per minute",
        RATELIMIT_HEAVY_READS="60 per hour",
        RATELIMIT_HEAVY_READS_PER_ADDRESS="30 per minute",
        PUSH_URL=None,
        PUSH_CHANNEL="santase:matches",
        LIVE_STREAMS_PER_PROCESS=150,
        LIVE_STREAMS_PER_BROWSER=8,
        LIVE_STREAMS_PER_ADDRESS=120,  # a club evening of 30 tables behind one router
        LIVE_HEARTBEAT_S=15,
        LIVE_LIFETIME_S=300,
    )
    if test_config is None:
        settings, old = from_environment(os.environ, config)
        config.update(settings)
        for name in old:
            new = PREFIX + name.removeprefix(OLD_PREFIX)
            app.logger.warning(
                "%s is an old name: call it %s. It is read until the next release.", name, new
            )
    else:
        config.from_mapping(test_config)
    config["SQLALCHEMY_DATABASE_URI"] = url = database_url(config["SQLALCHEMY_DATABASE_URI"])
    options = config.get("SQLALCHEMY_ENGINE_OPTIONS", {})
    config["SQLALCHEMY_ENGINE_OPTIONS"] = engine_options(url, options)
    if url.startswith("sqlite:///"):
        instance.mkdir(parents=True, exist_ok=True)
        create_private_file(url)
    if production:
        require_production_settings(config)
    config["SECRET_KEY"] = secret_key(
        config.get("SECRET_KEY"),
        instance,
        key_file=config.get("SECRET_KEY_FILE"),
        strict=production,
    )
    for old in config.get("SECRET_KEY_FALLBACKS") or []:
        check_key(old, strict=production, name="A key in SECRET_KEY_FALLBACKS")


def from_environment(
    environ: Mapping[str, str], defaults: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The settings the environment gives (typed as their defaults), and the old names used."""
    old = sorted(
        name
        for name in environ
        if (name.startswith(OLD_PREFIX) and not name.startswith(FLASK_OWN)) or name in OLD_NAMES
    )
    found: dict[str, Any] = {}
    for variable in old + [name for name in environ if name.startswith(PREFIX)]:  # new ones win
        name = variable.removeprefix(PREFIX if variable.startswith(PREFIX) else OLD_PREFIX)
        setting = RENAMED.get(name, name)
        found[setting] = _value(environ[variable], setting, defaults.get(setting))
    return found, old


def _value(raw: str, setting: str, default: Any) -> Any:
    if setting in LISTS:
        return [part.strip() for part in raw.split(",") if part.strip()]
    if not isinstance(default, bool | int | float):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        raise RuntimeError(
            f"{PREFIX}{setting} is {raw!r}: give a number, or true or false."
        ) from None


def require_production_settings(config: Mapping[str, Any]) -> None:
    if not config.get("SECRET_KEY") and not config.get("SECRET_KEY_FILE"):
        raise RuntimeError(
            "SANTASE_SECRET_KEY is not set. In production every server of the site needs the "
            f"same long random key: export SANTASE_SECRET_KEY=$({KEY_ADVICE}), or "
            "SANTASE_SECRET_KEY_FILE=/path/to/a/file/holding/it"
        )
    if not config.get("TRUSTED_HOSTS") and not config.get("SERVER_NAME"):
        raise RuntimeError(
            "SANTASE_TRUSTED_HOSTS is not set. Name the host(s) the site answers to, e.g. "
            "export SANTASE_TRUSTED_HOSTS=santase.example.org: links to share a match or to "
            "continue on another device are built from it, and requests for other hosts are "
            "refused."
        )


def database_url(url: str) -> str:
    """Send PostgreSQL URLs to psycopg 3."""
    return re.sub(r"^postgres(ql)?://", "postgresql+psycopg://", url)


def create_private_file(url: str) -> None:
    """Create the SQLite file readable by its owner alone: it holds the players' names."""
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    with suppress(OSError):  # there already, or not to be made here: SQLite says why
        Path(database).touch(0o600, exist_ok=False)


def engine_options(url: str, configured: Mapping[str, Any]) -> dict[str, Any]:
    """Those configured, over ours: browser keys kept out of logs, PostgreSQL's 503 within 3 s."""
    options = {"hide_parameters": True, **configured}
    if url.startswith("postgresql"):
        options.setdefault("pool_pre_ping", True)
        options["connect_args"] = {"connect_timeout": 3, **configured.get("connect_args", {})}
    return options


def check_key(key: str, *, strict: bool, name: str = "SECRET_KEY") -> str:
    if key.strip().lower() in PLACEHOLDER_SECRETS:
        raise RuntimeError(
            f"{name} is empty or a placeholder; set it to a long random value, e.g. {KEY_ADVICE}."
        )
    if strict and len(key.encode()) < MIN_KEY_BYTES:
        raise RuntimeError(
            f"{name} is {len(key.encode())} bytes long; production needs at least "
            f"{MIN_KEY_BYTES}, e.g. {KEY_ADVICE}."
        )
    return key


def secret_key(
    configured: object, instance: Path, *, key_file: object = None, strict: bool = False
) -> str:
    if configured is not None:
        return check_key(str(configured), strict=strict)
    if key_file is not None:
        return check_key(Path(str(key_file)).read_text().strip(), strict=strict)
    path = instance / "secret_key"
    if not path.exists() or not path.read_text().strip():
        _write_new_key(instance, path)
    return check_key(path.read_text().strip(), strict=strict, name=f"The key in {path}")


def _write_new_key(instance: Path, path: Path) -> None:
    instance.mkdir(parents=True, exist_ok=True)
    draft = instance / f".{path.name}.{os.getpid()}"
    draft.touch(0o600)
    draft.write_text(secrets.token_hex(32))
    try:
        with suppress(FileExistsError):
            if path.exists():  # empty: nothing was ever signed with it
                os.replace(draft, path)
            else:  # a hard link appears whole or not at all: workers starting together agree
                os.link(draft, path)
    finally:
        draft.unlink(missing_ok=True)
