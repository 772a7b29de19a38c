"""Club evenings: start one, draw its rounds, seat late players, withdraw, end it."""

import dataclasses
import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Row, select

from counter.game import evening as rules
from counter.game.evening import Format, Pairing, Standing
from counter.game.games import GAMES
from counter.game.names import parse_name
from counter.game.refusals import N_, Conflict, Gone, Invalid, NotFound
from counter.game.scoring import PRESETS, TARGETS, GameName
from counter.services import matches
from counter.services.read_models import MatchView
from counter.services.sharing import queryable
from counter.storage import push, repository
from counter.storage.models import Evening, EveningPlayer, EveningTable, db, utcnow
from counter.storage.transactions import writes

TABLES_KEPT = 8  # the table links a phone holds at once (a player may move tables)
ENDED = N_("This evening has ended; its tables record nothing more.")
SHARED_WITH_EVENING = ("id", "name", "game", "target", "board_token", "created_at")
SHARED_WITH_TABLE = ("id", "round", "number", "match_id", "token")
AWARDED = N_("The host has given this table's match to one player; it records nothing more.")


@dataclass(frozen=True)
class TableView:
    id: int
    round: int
    number: int
    names: tuple[str, str | None]
    scores: tuple[int, int]
    winner: str | None
    match_id: int | None
    token: str | None
    awarded: bool


@dataclass(frozen=True)
class EveningView:
    id: int
    name: str
    format: Format
    game: GameName  # every table's match is started with the game, target and rules
    target: int
    board_token: str
    created_at: datetime
    ended: bool
    players: list[rules.Player]
    rounds: int | None  # how many in all; None for three lives
    round: int  # the latest round drawn; 0 before the first
    tables: list[TableView]  # every round's, in order
    standings: list[Standing]
    next: tuple[int, list[tuple[str, str | None]]] | None  # once this round is over
    done: bool  # no round is left to play

    @property
    def current(self) -> list[TableView]:
        return [table for table in self.tables if table.round == self.round]


@writes
def create_evening(
    *, owner: str, name: str, fmt: str, names: list[str], rounds: int, target: int, preset: str
) -> int:
    if fmt not in set(Format):
        raise Invalid(N_("Choose how the evening is played."))
    if target not in TARGETS or preset not in PRESETS:
        raise Invalid(N_("Choose a target and house rules from the list."))
    game = PRESETS[preset].game
    if target not in GAMES[game].targets:  # the form offers every game's targets
        target = PRESETS[preset].target
    players = rules.check_players(names)
    if fmt == Format.SWISS and not 1 <= rounds < len(players):
        message = N_("With %(count)s players, play 1 to %(most)s rounds.")
        raise Invalid(message, count=len(players), most=len(players) - 1)
    row = Evening(
        owner=owner,
        name=parse_name(name, 1, "—"),
        format=fmt,
        rounds=rounds if fmt == Format.SWISS else 0,
        target=target,
        rules=PRESETS[preset].rules,
        game=game,
        board_token=secrets.token_urlsafe(16),
        players=[EveningPlayer(name=each, joined=1) for each in players],
    )
    db.session.add(row)
    db.session.commit()
    return row.id


def list_evenings(*, owner: str | None) -> Sequence[Row[int, str, datetime, datetime | None]]:
    found = select(Evening.id, Evening.name, Evening.created_at, Evening.ended_at)
    found = found.where(Evening.owner == owner).order_by(Evening.id.desc())
    return db.session.execute(found).all()


def _row(owner: str | None, evening_id: int, *, writing: bool = False) -> Evening:
    """The host's evening; locked, and refused once ended, when ``writing``."""
    found = select(Evening).where(Evening.id == evening_id, Evening.owner == owner)
    row: Evening | None = db.session.scalar(found.with_for_update() if writing else found)
    if row is None:
        raise NotFound(N_("There is no evening %(id)s in this browser."), id=evening_id)
    if writing and row.ended_at is not None:
        raise Gone(ENDED)
    return row


def get_evening(*, owner: str | None, evening_id: int) -> EveningView:
    return _view(_row(owner, evening_id))


def board(*, token: str) -> EveningView:
    found = select(Evening).where(Evening.board_token == token)
    row = db.session.scalar(found) if queryable(token) else None
    if row is None:
        raise NotFound(N_("There is no such evening board."))
    return _view(row)


def shows_board(*, token: str) -> bool:
    found = select(Evening.id).where(Evening.board_token == token)
    return queryable(token) and db.session.scalar(found) is not None


def _tables(row: Evening) -> list[rules.Table]:
    stored = repository.several([t.match_id for t in row.tables if t.match_id is not None])
    found = []
    for table in row.tables:
        pair: Pairing = (table.player1, table.player2)
        match = None if table.match_id is None else stored[table.match_id].match
        scores = (0, 0) if match is None else match.standing.scores
        won = None if match is None or match.winner is None else pair[match.winner - 1]
        found.append(rules.Table(table.round, pair, scores, table.awarded_to or won))
    return found


def _players(row: Evening) -> list[rules.Player]:
    return [rules.Player(p.id, p.name, p.joined, p.left) for p in row.players]


def _view(row: Evening) -> EveningView:
    players = _players(row)
    names: dict[int | None, str] = {p.id: p.name for p in players}
    tables = _tables(row)
    fmt = Format(row.format)
    shown = GAMES[row.game].shown
    try:
        drawn = rules.next_round(fmt, players, tables, row.rounds, row.uid)
        over = drawn is None
    except rules.RoundNotOver:
        drawn, over = None, False
    return EveningView(
        format=fmt,
        ended=row.ended_at is not None,
        players=players,
        rounds=rules.rounds_of(fmt, players, row.rounds),
        round=max((t.round for t in row.tables), default=0),
        tables=[
            TableView(
                names=(names[each.player1], names.get(each.player2)),
                scores=(shown(table.scores[0], row.target), shown(table.scores[1], row.target)),
                winner=names.get(table.winner),
                awarded=each.awarded_to is not None,
                **{name: getattr(each, name) for name in SHARED_WITH_TABLE},
            )
            for each, table in zip(row.tables, tables, strict=True)
        ],
        standings=rules.standings(fmt, players, tables),
        next=None if drawn is None else (drawn[0], [(names[a], names.get(b)) for a, b in drawn[1]]),
        done=over,
        **{name: getattr(row, name) for name in SHARED_WITH_EVENING},
    )


def start_round(*, owner: str, evening_id: int, number: int) -> None:
    """Draw round ``number`` and start its matches; started twice at once, it is one round."""
    row = _row(owner, evening_id)
    drawn = _draw(row, number)
    names = {p.id: p.name for p in row.players}
    house = dataclasses.asdict(row.rules)

    def start(a: int, b: int) -> int | None:
        uid = hashlib.sha256(f"{row.uid}:{number}:{a}:{b}".encode()).hexdigest()[:32]
        pair = (names[a], names[b])
        match, _new = matches.start_match(
            owner=owner, uid=uid, names=pair, target=row.target, rules=house, game=row.game
        )
        return match.id

    started = [(a, b, None if b is None else start(a, b)) for a, b in drawn]
    _seat(owner=owner, evening_id=evening_id, number=number, started=started)


def _draw(row: Evening, number: int) -> list[Pairing]:
    if row.ended_at is not None:
        raise Gone(ENDED)
    if any(table.round >= number for table in row.tables):
        raise Conflict(N_("Round %(number)s has started already."), number=number)
    drawn = rules.next_round(Format(row.format), _players(row), _tables(row), row.rounds, row.uid)
    if drawn is None:
        raise Conflict(N_("Every round of this evening has been played."))
    if drawn[0] != number:
        raise Conflict(N_("The next round is round %(number)s."), number=drawn[0])
    return drawn[1]


@writes
def _seat(
    *, owner: str, evening_id: int, number: int, started: list[tuple[int, int | None, int | None]]
) -> None:
    row = _row(owner, evening_id, writing=True)
    # Drawn again under the lock: a round started meanwhile, or a new player or result, is seen.
    if _draw(row, number) != [(a, b) for a, b, _match in started]:
        raise Conflict(N_("The round changed while it was started; start it again."))
    for index, (a, b, match_id) in enumerate(started, 1):
        table = EveningTable(round=number, number=index, player1=a, player2=b, match_id=match_id)
        table.token = None if b is None else secrets.token_urlsafe(16)
        row.tables.append(table)
    db.session.commit()
    push.evening_changed(evening_id)


@writes
def add_player(*, owner: str, evening_id: int, name: str) -> None:
    """A late player, who plays from the next round on."""
    row = _row(owner, evening_id, writing=True)
    if not name.strip():
        raise Invalid(N_("Write a name for the new player."))
    shown = _view(row)
    if shown.next is None and not shown.done and shown.round:
        raise Conflict(N_("Players join or leave between rounds; this one is still played."))
    if shown.format is Format.ROUND_ROBIN and shown.round:
        raise Conflict(N_("When everyone plays everyone, no one can join after the first round."))
    tidied = rules.check_players([*(p.name for p in row.players), name])[-1]
    row.players.append(EveningPlayer(name=tidied, joined=shown.round + 1))
    db.session.commit()
    push.evening_changed(evening_id)


@writes
def withdraw(*, owner: str, evening_id: int, player_id: int) -> None:
    """A player leaves after the round played now; their match ends first."""
    row = _row(owner, evening_id, writing=True)
    shown = _view(row)
    player = next((p for p in row.players if p.id == player_id), None)
    if player is None or player.left is not None:
        raise NotFound(N_("That player is not playing this evening."))
    busy = [t for t in shown.current if t.winner is None and player.name in t.names and t.names[1]]
    if busy:
        message = N_("%(name)s is still playing at table %(table)s: end that match first.")
        raise Conflict(message, name=player.name, table=busy[0].number)
    player.left = shown.round
    db.session.commit()
    push.evening_changed(evening_id)


@writes
def award(*, owner: str, evening_id: int, table_id: int, player_id: int) -> None:
    """End a table's match for an absent player: the one present wins it."""
    row = _row(owner, evening_id, writing=True)
    table = next((t for t in row.tables if t.id == table_id), None)
    if table is None or player_id not in (table.player1, table.player2) or table.player2 is None:
        raise NotFound(N_("That table has no such player."))
    if next(t for t in _view(row).tables if t.id == table_id).winner is not None:
        raise Conflict(N_("That table's match is over already."))
    table.awarded_to = player_id
    db.session.commit()
    push.evening_changed(evening_id)


@writes
def end_evening(*, owner: str, evening_id: int) -> None:
    row = _row(owner, evening_id, writing=True)
    row.ended_at = utcnow()
    db.session.commit()
    push.evening_changed(evening_id)
    push.recheck(t.match_id for t in row.tables if t.match_id is not None)


_LINKED = select(Evening, EveningTable).join(EveningTable)


@dataclass(frozen=True)
class TablePlace:
    """Where in its evening a table's match is played, and the link that opens it."""

    token: str
    evening: str
    round: int
    number: int


def table_match(*, token: str) -> MatchView:
    found = _LINKED.where(EveningTable.token == token)
    row = db.session.execute(found).one_or_none() if queryable(token) else None
    if row is None:
        raise NotFound(N_("There is no such table."))
    if row.Evening.ended_at is not None:
        raise Gone(ENDED)
    return matches.get_match(owner=row.Evening.owner, match_id=row.EveningTable.match_id)


def _linked(tokens: list[str], match_id: int) -> Row[Evening, EveningTable] | None:
    """The evening and table of match ``match_id`` that one of these links opens, if one does."""
    usable = [token for token in tokens[:TABLES_KEPT] if queryable(token)]
    found = _LINKED.where(EveningTable.match_id == match_id, EveningTable.token.in_(usable))
    return db.session.execute(found.limit(1)).one_or_none() if usable else None


def table_place(*, tokens: list[str], match_id: int) -> TablePlace | None:
    """Which of these links opens the match while its evening is on, if one does, and where."""
    row = _linked(tokens, match_id)
    if row is None or row.Evening.ended_at is not None:
        return None
    table = row.EveningTable
    return TablePlace(str(table.token), row.Evening.name, table.round, table.number)


def table_host(
    *, tokens: list[str], match_id: int, asking: str | None, writing: bool
) -> str | None:
    """The host's key if one of these links opens the match; another's write once closed is Gone."""
    row = _linked(tokens, match_id)
    if row is None:
        return None
    if writing and row.Evening.owner != asking:
        if row.Evening.ended_at is not None:
            raise Gone(ENDED)
        if row.EveningTable.awarded_to is not None:
            raise Gone(AWARDED)
    return str(row.Evening.owner)
