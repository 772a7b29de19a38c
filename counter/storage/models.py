"""The database tables: only what the game cannot work out from the deals (and won_by)."""

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import (
    CheckConstraint,
    Connection,
    Engine,
    Enum,
    ForeignKey,
    Index,
    SmallInteger,
    String,
    UniqueConstraint,
    event,
    text,
    true,
)
from sqlalchemy.orm import Mapped, composite, mapped_column, relationship

from counter.game.names import DEFAULT_NAMES, NAME_MAX_LENGTH
from counter.game.parsing import REQUEST_ID_MAX_LENGTH
from counter.game.scoring import DEFAULT_TARGET, GameName, HouseRules

OWNER_KEY_LENGTH = 64
DEVICE_LABEL_LENGTH = 40
MAX_ID = 2**31 - 1  # the largest id every supported database's INTEGER column holds


def utcnow() -> datetime:
    """Naive UTC, so that SQLite and PostgreSQL hand back the same kind of value."""
    return datetime.now(UTC).replace(tzinfo=None)


def choice_column(default: StrEnum, name: str | None = None) -> Any:
    """A column of a game, or of a house rule, stored as its value ("by_tricks")."""
    kind = type(default)
    values = [choice.value for choice in kind]
    return mapped_column(
        name,
        Enum(kind, native_enum=False, length=16, values_callable=lambda _: values),
        nullable=False,
        default=default,
        server_default=default.value,
    )


def house_rules_columns() -> Any:
    """One column per house rule, as one attribute (a new rule needs a migration only)."""
    columns = (choice_column(each.default, each.name) for each in HouseRules.switches())
    return composite(HouseRules, *columns)


# What a match or an evening holds goes with it, deleted by the database's own cascade.
OWNED: dict[str, Any] = {"cascade": "all, delete-orphan", "passive_deletes": True}
# Objects stay readable after commit, so a write answers without reading the match back.
db = SQLAlchemy(session_options={"expire_on_commit": False})


class Match(db.Model):  # type: ignore[name-defined,misc]
    """A run of deals between two players until one reaches the target."""

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
    # Kept in step for the series index: the winner, and what the win counts (Schneider-Bummerl 2).
    won_by: Mapped[int | None] = mapped_column(SmallInteger)
    marks: Mapped[int | None] = mapped_column(SmallInteger)
    game: Mapped[GameName] = choice_column(GameName.SANTASE)
    # The rules for the next deal, and who dealt first (later dealers follow from the deals).
    rules: Mapped[HouseRules] = house_rules_columns()
    first_dealer: Mapped[int] = mapped_column(SmallInteger, default=1)
    # When this browser last changed or continued it: the counter shows the latest.
    played_at: Mapped[datetime] = mapped_column(default=utcnow)
    # While set, /shared/<share_token> shows the match, read-only, to anyone with the link.
    share_token: Mapped[str | None] = mapped_column(String(32))

    deals: Mapped[list["Deal"]] = relationship(
        back_populates="match", order_by="Deal.number", **OWNED
    )


class Deal(db.Model):  # type: ignore[name-defined,misc]
    """One deal's game points, recorded for the player who received them."""

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
    # With the rules they were scored under: a change of rules never rewrites a deal.
    points: Mapped[int] = mapped_column(SmallInteger)
    rules: Mapped[HouseRules] = house_rules_columns()
    request_id: Mapped[str | None] = mapped_column(String(REQUEST_ID_MAX_LENGTH))

    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    corrected_at: Mapped[datetime | None]

    match: Mapped[Match] = relationship(back_populates="deals")


class DeviceLink(db.Model):  # type: ignore[name-defined,misc]
    """A one-time link that moves a browser's key, and its matches, to another device."""

    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    owner: Mapped[str] = mapped_column(String(OWNER_KEY_LENGTH))
    # The device that made it: the one that opens it is brought by that device.
    device_id: Mapped[int | None] = mapped_column(
        ForeignKey("device.id", ondelete="CASCADE", name="fk_device_link_device")
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    used_at: Mapped[datetime | None]


# Execution options of a transaction that will write: on SQLite, BEGIN IMMEDIATE takes the write
# lock up front instead of failing half-way (other databases ignore them).
WRITE: dict[str, Any] = {"sqlite_begin": "IMMEDIATE"}
# On SQLite, no BEGIN at all: for the PRAGMAs that do nothing inside a transaction.
OUTSIDE_TRANSACTIONS: dict[str, Any] = {"sqlite_begin": None}


def tune_engine(engine: Engine, *, lock_timeout_ms: int = 5000) -> None:
    """How long a write waits for a lock (then 503); on SQLite also WAL, and BEGINs of ours."""
    sqlite = engine.dialect.name == "sqlite"
    statements = [f"SET lock_timeout = {int(lock_timeout_ms)}"]
    if sqlite:
        statements = [
            "PRAGMA journal_mode=WAL",
            "PRAGMA synchronous=FULL",  # not NORMAL: an acknowledged deal survives a power cut
            f"PRAGMA busy_timeout={int(lock_timeout_ms)}",
            "PRAGMA foreign_keys=ON",
            "PRAGMA secure_delete=ON",  # what is deleted is overwritten (and empty_the_log)
        ]
        event.listen(engine, "begin", _begin)
    elif engine.dialect.name != "postgresql":
        return

    @event.listens_for(engine, "connect")
    def _on_connect(connection: Any, _record: Any) -> None:
        if sqlite:
            connection.isolation_level = None  # pysqlite begins no transactions of its own
        cursor = connection.cursor()
        for statement in statements:
            cursor.execute(statement)
        cursor.close()
        connection.commit()


def _begin(connection: Connection) -> None:
    mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
    if mode is not None:
        connection.exec_driver_sql(f"BEGIN {mode}")


def empty_the_log() -> None:
    """On SQLite, fold the write-ahead log (old pages not zeroed) into the database, to nothing."""
    if db.engine.dialect.name != "sqlite":
        return
    # A checkpoint inside a transaction could not reach the log's end.
    with db.engine.connect().execution_options(**OUTSIDE_TRANSACTIONS) as connection:
        connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


class Device(db.Model):  # type: ignore[name-defined,misc]
    """A phone or browser, named by ``token`` in its cookie; its key is kept here alone."""

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
    owner: Mapped[str] = mapped_column(String(OWNER_KEY_LENGTH))
    # Its own key while it holds another's without its matches: where it goes when forgotten.
    home: Mapped[str | None] = mapped_column(String(OWNER_KEY_LENGTH))
    # The match on this device's screen; none: the key's match played last.
    match_id: Mapped[int | None] = mapped_column(
        ForeignKey("match.id", ondelete="SET NULL", name="fk_device_match")
    )
    # The match it left by starting the one it shows: a phone still there is offered the new.
    left_match_id: Mapped[int | None] = mapped_column(
        ForeignKey("match.id", ondelete="SET NULL", name="fk_device_left_match")
    )
    label: Mapped[str] = mapped_column(String(DEVICE_LABEL_LENGTH), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    seen_at: Mapped[datetime] = mapped_column(default=utcnow)
    # False for a device a write without a cookie made, until that cookie comes back.
    came_back: Mapped[bool] = mapped_column(default=True, server_default=true())
    # The device whose link it came by, while both hold its key: it outranks this one.
    brought_by: Mapped[int | None] = mapped_column(
        ForeignKey("device.id", ondelete="SET NULL", name="fk_device_brought_by")
    )
    # When forgetting gave this token's device a new one: every copy of the old holds nothing.
    replaced_at: Mapped[datetime | None]


class Spent(db.Model):  # type: ignore[name-defined,misc]
    """A hash of a used match uid or request id, so a late duplicate never records again."""

    id: Mapped[int] = mapped_column(primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)  # of what was used, and where
    owner_digest: Mapped[str] = mapped_column(String(64), index=True)
    # A request id goes with its match; a match uid outlives the match.
    match_id: Mapped[int | None] = mapped_column(
        ForeignKey("match.id", ondelete="CASCADE"), index=True
    )
    # A hash of what a uid started (the settings) or a request id recorded (seat, outcome).
    settings_digest: Mapped[str | None] = mapped_column(String(64))


class Evening(db.Model):  # type: ignore[name-defined,misc]
    """A club evening of a browser (its host): players at tables, round after round."""

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
    # What each table's match is started with.
    target: Mapped[int] = mapped_column(SmallInteger, default=DEFAULT_TARGET)
    rules: Mapped[HouseRules] = house_rules_columns()
    game: Mapped[GameName] = choice_column(GameName.SANTASE)
    board_token: Mapped[str] = mapped_column(String(32))  # the room's read-only board
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[datetime | None]  # from then on its tables record nothing

    players: Mapped[list["EveningPlayer"]] = relationship(order_by="EveningPlayer.id", **OWNED)
    tables: Mapped[list["EveningTable"]] = relationship(
        order_by="(EveningTable.round, EveningTable.number)", **OWNED
    )


class EveningPlayer(db.Model):  # type: ignore[name-defined,misc]
    """A player of an evening, from the round they joined until they withdrew."""

    __table_args__ = (UniqueConstraint("evening_id", "name", name="uq_evening_player_name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    evening_id: Mapped[int] = mapped_column(ForeignKey("evening.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(NAME_MAX_LENGTH))
    joined: Mapped[int] = mapped_column("joined_round", SmallInteger, default=1)  # its first round
    left: Mapped[int | None] = mapped_column("left_round", SmallInteger)  # the last round played


class EveningTable(db.Model):  # type: ignore[name-defined,misc]
    """One table of a round: its two players and their match, or one player's bye."""

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
