"""The database tables: matches owned by a browser, the deals recorded in them, devices.

Only what cannot be derived is stored, except ``Match.won_by`` (for the series index);
totals, dealers and when a match finished are worked out from the deals by the game.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import (
    CheckConstraint,
    Connection,
    Dialect,
    Engine,
    ForeignKey,
    Index,
    SmallInteger,
    String,
    TypeDecorator,
    UniqueConstraint,
    event,
    text,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, composite, mapped_column, relationship

from counter.game.names import DEFAULT_NAMES, NAME_MAX_LENGTH
from counter.game.parsing import REQUEST_ID_MAX_LENGTH
from counter.game.scoring import DEFAULT_TARGET, GameName, HouseRules

OWNER_KEY_LENGTH = 64
DEVICE_LABEL_LENGTH = 40
MAX_ID = 2**31 - 1  # the largest id every supported database's INTEGER column holds


def utcnow() -> datetime:
    """Naive UTC, so that SQLite and PostgreSQL hand back the same kind of value."""
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class ChoiceOf(TypeDecorator[StrEnum]):
    """One choice of a house rule, stored as its value ("by_tricks")."""

    impl = String(16)
    cache_ok = True

    def __init__(self, kind: type[StrEnum]) -> None:
        super().__init__()
        self.kind = kind

    def process_bind_param(self, value: StrEnum | str | None, dialect: Dialect) -> str | None:
        return None if value is None else str(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> StrEnum | None:
        return None if value is None else self.kind(value)


def house_rules_columns() -> Any:
    """The columns of :class:`~counter.game.scoring.HouseRules`, one per rule, as one attribute
    (a new house rule needs a migration, not a change here)."""
    return composite(
        HouseRules,
        *(
            mapped_column(
                switch.name,
                ChoiceOf(switch.kind),
                nullable=False,
                default=switch.default,
                server_default=switch.default.value,
            )
            for switch in HouseRules.switches()
        ),
    )


# Objects stay readable after commit, so a write answers without reading the match back.
db = SQLAlchemy(model_class=Base, session_options={"expire_on_commit": False})


class Match(db.Model):  # type: ignore[name-defined,misc]
    """A run of deals between two players until one reaches the target."""

    __tablename__ = "match"
    __table_args__ = (
        Index("ix_match_owner_id", "owner", "id"),
        Index("ix_match_owner_played", "owner", "played_at"),
        # The games of a series are counted in this index alone (counter.storage.series).
        Index(
            "ix_match_series",
            "owner",
            "game",
            "player1",
            "player2",
            "id",
            "won_by",
            "marks",
            sqlite_where=text("won_by IS NOT NULL"),
            postgresql_where=text("won_by IS NOT NULL"),
        ),
        CheckConstraint("target IN (7, 11, 15)", name="ck_match_target"),
        CheckConstraint("won_by IN (1, 2)", name="ck_match_won_by"),
        CheckConstraint("marks IN (1, 2)", name="ck_match_marks"),
        CheckConstraint("game IN ('santase', 'sixty_six', 'schnapsen')", name="ck_match_game"),
        CheckConstraint("first_dealer IN (1, 2)", name="ck_match_first_dealer"),
        # A match keeps its uid through export and import: importing twice adds nothing.
        UniqueConstraint("owner", "uid", name="uq_match_owner_uid"),
        UniqueConstraint("share_token", name="uq_match_share_token"),
        # Ids are never reused: a phone holding a deleted match's id must not reach another.
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    uid: Mapped[str] = mapped_column(String(32), default=lambda: uuid.uuid4().hex)
    owner: Mapped[str] = mapped_column(String(OWNER_KEY_LENGTH))
    player1: Mapped[str] = mapped_column(String(NAME_MAX_LENGTH), default=DEFAULT_NAMES[0])
    player2: Mapped[str] = mapped_column(String(NAME_MAX_LENGTH), default=DEFAULT_NAMES[1])
    target: Mapped[int] = mapped_column(SmallInteger, default=DEFAULT_TARGET)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    won_by: Mapped[int | None] = mapped_column(SmallInteger)  # the game's winner, kept in step
    # What the won match counts in its series (a Schneider-Bummerl 2), kept in step too.
    marks: Mapped[int | None] = mapped_column(SmallInteger)
    game: Mapped[GameName] = mapped_column(
        ChoiceOf(GameName), default=GameName.SANTASE, server_default=GameName.SANTASE.value
    )
    # The rules for the next deal, and who dealt first (later dealers follow from the deals).
    rules: Mapped[HouseRules] = house_rules_columns()
    first_dealer: Mapped[int] = mapped_column(SmallInteger, default=1)
    # When this browser last changed or continued it: the counter shows the latest.
    played_at: Mapped[datetime] = mapped_column(default=utcnow)
    # While set, /shared/<share_token> shows the match, read-only, to anyone with the link.
    share_token: Mapped[str | None] = mapped_column(String(32))

    deals: Mapped[list[Deal]] = relationship(
        back_populates="match",
        order_by="Deal.number",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )

    @property
    def names(self) -> tuple[str, str]:
        return (self.player1, self.player2)


class Deal(db.Model):  # type: ignore[name-defined,misc]
    """One deal's game points, recorded for the player who received them."""

    __tablename__ = "deal"
    __table_args__ = (
        UniqueConstraint("match_id", "number", name="uq_deal_match_number"),
        UniqueConstraint("match_id", "request_id", name="uq_deal_match_request"),
        CheckConstraint("player IN (1, 2)", name="ck_deal_player"),  # NULL passes: a tie
        CheckConstraint("number >= 1", name="ck_deal_number"),
        CheckConstraint("points >= 0", name="ck_deal_points"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("match.id", ondelete="CASCADE"))
    number: Mapped[int]
    player: Mapped[int | None] = mapped_column(SmallInteger)  # None for a tied deal
    outcome: Mapped[str] = mapped_column(String(32))
    # Kept with the house rules they were scored under: a later change of rules never
    # rewrites a deal, and a correction scores it by the rules it was played under.
    points: Mapped[int] = mapped_column(SmallInteger)
    rules: Mapped[HouseRules] = house_rules_columns()
    request_id: Mapped[str | None] = mapped_column(String(REQUEST_ID_MAX_LENGTH))

    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # When a player last changed this deal's player or outcome, if ever.
    corrected_at: Mapped[datetime | None]

    match: Mapped[Match] = relationship(back_populates="deals")


class DeviceLink(db.Model):  # type: ignore[name-defined,misc]
    """A one-time link that moves a browser's key, and so its matches, to another device;
    only a hash of its token is kept."""

    __tablename__ = "device_link"

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    owner: Mapped[str] = mapped_column(String(OWNER_KEY_LENGTH))
    # The device that made it: the one that opens it is brought by that device.
    device_id: Mapped[int | None] = mapped_column(
        ForeignKey("device.id", ondelete="CASCADE", name="fk_device_link_device")
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    used_at: Mapped[datetime | None]


def tune_engine(engine: Engine, *, lock_timeout_ms: int = 5000) -> None:
    """How long a write waits for a lock (then 503: counter.storage.transactions); on
    SQLite also WAL, durable commits and explicit BEGINs.

    pysqlite's own transaction handling is off so that a write can begin with
    ``BEGIN IMMEDIATE`` (:data:`WRITE`) and wait for the write lock up front, instead of
    failing half-way when another write got in first.
    """
    if engine.dialect.name == "postgresql":

        @event.listens_for(engine, "connect")
        def _on_pg_connect(connection: Any, _record: Any) -> None:
            cursor = connection.cursor()
            cursor.execute(f"SET lock_timeout = {int(lock_timeout_ms)}")
            cursor.close()
            connection.commit()

    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _on_connect(connection: Any, _record: Any) -> None:
        connection.isolation_level = None
        cursor = connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # An fsync at every commit, so an acknowledged deal survives a power cut (not NORMAL).
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute(f"PRAGMA busy_timeout={int(lock_timeout_ms)}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA secure_delete=ON")  # what is deleted is overwritten: erasure.py
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(SQLITE_BEGIN, "DEFERRED")
        if mode is not None:
            connection.exec_driver_sql(f"BEGIN {mode}")


SQLITE_BEGIN = "sqlite_begin"
WRITE: dict[str, Any] = {SQLITE_BEGIN: "IMMEDIATE"}
"""Execution options for a transaction that will write (ignored by other databases)."""


class Device(db.Model):  # type: ignore[name-defined,misc]
    """A phone or browser holding a key, named by ``token`` in its signed cookie. The key is
    kept here, not in that cookie, so no late answer can put back a key rotated or handed over."""

    __tablename__ = "device"
    __table_args__ = (
        Index("ix_device_owner", "owner"),
        UniqueConstraint("token", name="uq_device_token"),
        Index(
            "ix_device_never_back",
            "created_at",
            sqlite_where=text("NOT came_back"),
            postgresql_where=text("NOT came_back"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32))
    # The key whose matches this device keeps now.
    owner: Mapped[str] = mapped_column(String(OWNER_KEY_LENGTH))
    # Its own key, kept when it joined another device's without bringing its matches along:
    # where it goes back to when that device forgets it.
    home: Mapped[str | None] = mapped_column(String(OWNER_KEY_LENGTH))
    # The match on this device's screen; none: the key's match played last.
    match_id: Mapped[int | None] = mapped_column(
        ForeignKey("match.id", ondelete="SET NULL", name="fk_device_match")
    )
    # If it started the match it shows, the one it showed before: a phone still showing that
    # one is offered the new one.
    left_match_id: Mapped[int | None] = mapped_column(
        ForeignKey("match.id", ondelete="SET NULL", name="fk_device_left_match")
    )
    # What kind of device it is, in a few words ("Chrome on Android"), to tell them apart.
    label: Mapped[str] = mapped_column(String(DEVICE_LABEL_LENGTH), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    # False for a device a write without a cookie made, until that cookie comes back.
    came_back: Mapped[bool] = mapped_column(default=True, server_default=true())
    # The device whose link it came by, while both hold the same key: that device, and the
    # one that brought it, outrank this one (counter/services/ranks.py).
    brought_by: Mapped[int | None] = mapped_column(
        ForeignKey("device.id", ondelete="SET NULL", name="fk_device_brought_by")
    )
    # When "Forget other devices" gave the device that held this token a new one: this row
    # is what every copy of the old cookie is now, holding nothing.
    replaced_at: Mapped[datetime | None]


class Spent(db.Model):  # type: ignore[name-defined,misc]
    """A hash of a used match uid or deal request id, kept after an undo or delete so that a
    late duplicate never records again (:mod:`counter.services.spent`)."""

    __tablename__ = "spent"

    id: Mapped[int] = mapped_column(primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)  # of what was used, and where
    owner_digest: Mapped[str] = mapped_column(String(64), index=True)
    # A request id goes with its match; a match uid outlives the match.
    match_id: Mapped[int | None] = mapped_column(
        ForeignKey("match.id", ondelete="CASCADE"), index=True
    )
    # For a uid: a hash of the settings the match was started with; for a request id, of
    # the deal it recorded (who received the points, and why).
    settings_digest: Mapped[str | None] = mapped_column(String(64))


class Evening(db.Model):  # type: ignore[name-defined,misc]
    """A club evening of a browser (its host): players at tables, round after round. Its
    standings are worked out from its tables' matches (:mod:`counter.game.evening`)."""

    __tablename__ = "evening"
    __table_args__ = (
        Index("ix_evening_owner", "owner", "id"),
        UniqueConstraint("board_token", name="uq_evening_board_token"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    uid: Mapped[str] = mapped_column(String(32), default=lambda: uuid.uuid4().hex)
    owner: Mapped[str] = mapped_column(String(OWNER_KEY_LENGTH))
    name: Mapped[str] = mapped_column(String(NAME_MAX_LENGTH))
    format: Mapped[str] = mapped_column(String(16))
    rounds: Mapped[int] = mapped_column(SmallInteger, default=0)  # Swiss: how many
    # What each table's match is started with (counter.game.evening.TableSettings).
    target: Mapped[int] = mapped_column(SmallInteger, default=DEFAULT_TARGET)
    rules: Mapped[HouseRules] = house_rules_columns()
    game: Mapped[GameName] = mapped_column(
        ChoiceOf(GameName), default=GameName.SANTASE, server_default=GameName.SANTASE.value
    )
    board_token: Mapped[str] = mapped_column(String(32))  # the room's read-only board
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]  # from then on its tables record nothing

    players: Mapped[list[EveningPlayer]] = relationship(
        order_by="EveningPlayer.id", cascade="all, delete-orphan", passive_deletes=True
    )
    tables: Mapped[list[EveningTable]] = relationship(
        order_by="(EveningTable.round, EveningTable.number)",
        cascade="all, delete-orphan",
        passive_deletes=True,
    )


class EveningPlayer(db.Model):  # type: ignore[name-defined,misc]
    """A player of an evening, from the round they joined until they withdrew."""

    __tablename__ = "evening_player"
    __table_args__ = (UniqueConstraint("evening_id", "name", name="uq_evening_player_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(NAME_MAX_LENGTH))
    joined: Mapped[int] = mapped_column(
        "joined_round", SmallInteger, default=1
    )  # the first round to play
    left: Mapped[int | None] = mapped_column("left_round", SmallInteger)  # the last round played


class EveningTable(db.Model):  # type: ignore[name-defined,misc]
    """One table of a round: its two players and their match, or one player's bye. A round
    is its tables; the unique number makes a round started twice at once one round."""

    __tablename__ = "evening_table"
    __table_args__ = (
        UniqueConstraint("evening_id", "round", "number", name="uq_evening_table_number"),
        UniqueConstraint("token", name="uq_evening_table_token"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(SmallInteger)
    number: Mapped[int] = mapped_column(SmallInteger)
    player1: Mapped[int] = mapped_column(ForeignKey("evening_player.id", ondelete="CASCADE"))
    player2: Mapped[int | None] = mapped_column(ForeignKey("evening_player.id", ondelete="CASCADE"))
    match_id: Mapped[int | None] = mapped_column(
        ForeignKey("match.id", ondelete="CASCADE"), index=True
    )
    # Opens this table's match, and nothing else of the host's, on a phone.
    token: Mapped[str | None] = mapped_column(String(32))
    # The host ended the match for an absent player: the one present wins it.
    awarded_to: Mapped[int | None] = mapped_column(ForeignKey("evening_player.id"))
